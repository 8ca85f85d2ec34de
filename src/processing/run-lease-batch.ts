import { isPromise, type MaybePromise } from '../shared/maybe-promise.js';
import type { OrderLeases, Taken } from '../shared/order-lease.js';

/**
 * A durable worker's run leases where the leases take several in one step (`OrderLeases.takeMany`: Redis, where they
 * share a slot). The jobs a worker starts in one turn of its event loop (BullMQ hands several over at once under
 * load) ask for their leases in one script, and the leases of finished jobs ride with it: one round trip for the
 * batch instead of one per job. Each job still holds its own lease, so one job of a charge at a time still holds
 * across workers.
 */
interface RunLeaseBatch {
  /** The first ask of `resource`'s run lease for `owner`, sent with the others of this turn; undefined: ask alone. */
  ask(resource: string, owner: string): Promise<Taken> | undefined;
  /** A finished job's lease: given back with the next batch, or alone after `giveLaterMs`. */
  giveLater(resource: string, fence: string): void;
}

/**
 * How long a finished job's run lease waits to be given back with the next batch (one script instead of two) before it
 * is given back alone: about one queue round trip, the time the worker takes to fetch its next job.
 */
export const giveLaterMs = 20;
/** Takes per script at most (a worker runs up to 1 000 jobs at once): more wait for the next turn's script. */
const maxBatch = 100;

/** After the current I/O, so every job handed over in this turn joins the batch; a plain timer where `setImmediate` is absent. */
const afterIo: (run: () => void) => void =
  typeof setImmediate === 'function' ? (run) => void setImmediate(run) : (run) => void setTimeout(run, 0);

interface Ask {
  resource: string;
  owner: string;
  resolve(taken: Taken): void;
  reject(error: unknown): void;
}

export function createRunLeaseBatch(
  takeMany: OrderLeases['takeMany'],
  give: (resource: string, fence: string) => void,
  options: { ttlMs: number; ticketTtlMs: number | undefined; giveLaterMs?: number | undefined },
): RunLeaseBatch {
  if (takeMany === undefined) return { ask: () => undefined, giveLater: give };
  const ask = options.ticketTtlMs === undefined ? undefined : { ticketTtlMs: options.ticketTtlMs };
  const asks: Ask[] = [];
  // Run leases of finished jobs not given back yet.
  const later: { resource: string; fence: string }[] = [];
  let laterTimer: ReturnType<typeof setTimeout> | undefined;

  function giveNow(): void {
    laterTimer = undefined;
    for (const { resource, fence } of later.splice(0)) give(resource, fence);
  }

  function send(): void {
    const batch = asks.splice(0, maxBatch);
    if (asks.length > 0) afterIo(send);
    if (batch.length === 0) return;
    clearTimeout(laterTimer);
    laterTimer = undefined;
    const given = later.splice(0);
    let taking: MaybePromise<Taken[]>;
    try {
      taking = takeMany!(given, batch, options.ttlMs, ask);
    } catch (error) {
      taking = Promise.reject(error as Error);
    }
    const answered = (taken: Taken[]) => batch.forEach((one, i) => one.resolve(taken[i]));
    if (!isPromise(taking)) return answered(taking);
    taking.then(answered, (error: unknown) => {
      // Given back alone; a take that landed all the same lapses after its TTL.
      for (const { resource, fence } of given) give(resource, fence);
      for (const one of batch) one.reject(error);
    });
  }

  return {
    ask(resource, owner) {
      return new Promise<Taken>((resolve, reject) => {
        if (asks.push({ resource, owner, resolve, reject }) === 1) afterIo(send);
      });
    },
    giveLater(resource, fence) {
      later.push({ resource, fence });
      laterTimer ??= setTimeout(giveNow, options.giveLaterMs ?? giveLaterMs);
    },
  };
}
