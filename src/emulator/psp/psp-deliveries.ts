import type { DeliveryFaults } from '../delivery-faults.js';
import { attemptWebhook, waitUnlessClosed } from '../post-webhook.js';
import type { PspWebhook } from './psp-profile.js';

export interface PspDeliveryAttempt {
  at: string;
  /** 0 when no answer came (dropped, timed out, refused). */
  status: number;
  error?: string;
}

/** One webhook the emulator sends (with its retries): what it carried and how it ended. */
export interface PspDelivery {
  id: string;
  chargeId: string;
  /** What it told: the payment, a duplicate of it, a late `pending` after it, its refund or its dispute. */
  kind: 'paid' | 'duplicate' | 'late-pending' | 'refund' | 'dispute';
  url: string;
  headers: Record<string, string>;
  body: string;
  /** `paused`: waiting for the queue to be re-enabled (Asaas after 15 failures in a row). */
  state: 'pending' | 'delivered' | 'failed' | 'paused';
  attempts: PspDeliveryAttempt[];
}

interface DeliveriesConfig {
  scheduleMs: readonly number[];
  /** Multiplies every wait (0.001: a 15-minute retry after 900 ms). */
  timeFactor: number;
  timeoutMs: number;
  pauseAfterFailures: number;
  now: () => number;
  faults: DeliveryFaults;
  closed: AbortSignal;
}

/**
 * The PSP's delivery queue: each webhook tried at once, then after each wait of the PSP's schedule (scaled
 * by `timeFactor`); only a 2xx counts. After `pauseAfterFailures` failed attempts in a row the queue pauses:
 * nothing is sent until `resume()`, and what waits is kept (Asaas's "fila pausada").
 */
export function createPspDeliveries(config: DeliveriesConfig) {
  const log: PspDelivery[] = [];
  const inFlight = new Set<Promise<void>>();
  let sequence = 0;
  let failuresInARow = 0;
  let paused: { promise: Promise<void>; resolve: () => void } | undefined;

  const wait = (ms: number) => waitUnlessClosed(ms, config.closed);

  async function attempt(delivery: PspDelivery): Promise<boolean> {
    const fault = config.faults.take(delivery.url);
    const at = new Date(config.now()).toISOString();
    const { status, error } = await attemptWebhook(
      { url: delivery.url, body: delivery.body, headers: delivery.headers, timeoutMs: config.timeoutMs, closed: config.closed },
      fault,
    );
    delivery.attempts.push({ at, status, ...(error !== undefined && { error }) });
    return status >= 200 && status < 300;
  }

  async function deliver(delivery: PspDelivery): Promise<void> {
    const attempts = config.scheduleMs.length + 1;
    let used = 0;
    while (!config.closed.aborted) {
      if (paused) {
        // A paused queue keeps its webhooks; once re-enabled each is sent again with its attempts anew.
        delivery.state = 'paused';
        await Promise.race([paused.promise, wait(2 ** 31 - 1)]);
        if (config.closed.aborted) break;
        delivery.state = 'pending';
        used = 0;
      }
      if (used >= attempts) break;
      used++;
      if (await attempt(delivery)) {
        failuresInARow = 0;
        delivery.state = 'delivered';
        return;
      }
      failuresInARow++;
      if (failuresInARow >= config.pauseAfterFailures && !paused) {
        let resolve = () => {};
        const promise = new Promise<void>((r) => (resolve = r));
        paused = { promise, resolve };
      }
      const waitMs = config.scheduleMs[used - 1];
      if (waitMs !== undefined && !paused) await wait(waitMs * config.timeFactor);
    }
    if (delivery.state === 'pending') delivery.state = 'failed';
  }

  return {
    /** Queues one webhook to `url` (the registered URL, the PSP's query added). */
    send(url: string, chargeId: string, kind: PspDelivery['kind'], webhook: PspWebhook): PspDelivery {
      const delivery: PspDelivery = {
        id: `dlv_${String(++sequence).padStart(5, '0')}`,
        chargeId,
        kind,
        url: withQuery(url, webhook.query),
        headers: webhook.headers,
        body: webhook.body,
        state: 'pending',
        attempts: [],
      };
      log.push(delivery);
      if (!config.closed.aborted) {
        const work = deliver(delivery);
        inFlight.add(work);
        void work.finally(() => inFlight.delete(work));
      }
      return delivery;
    },
    deliveries: (): readonly PspDelivery[] => log,
    /** True while the queue is paused. */
    paused: () => paused !== undefined,
    /** Re-enables a paused queue: what waits is sent again. */
    resume(): void {
      failuresInARow = 0;
      const was = paused;
      paused = undefined;
      was?.resolve();
    },
    /** Resolves once no delivery is being attempted (a paused one waits for `resume()`: it counts as settled). */
    async idle(): Promise<void> {
      while (log.some((d) => d.state === 'pending') && !config.closed.aborted)
        await Promise.race([Promise.allSettled([...inFlight]), wait(5)]);
    },
  };
}

export type PspDeliveries = ReturnType<typeof createPspDeliveries>;

/** The registered URL with the PSP's query (`?data.id=…`) added, after the URL's own query (`?shop=1`) with `&`. */
export function withQuery(url: string, query: string): string {
  const parameters = query.replace(/^\?/, '');
  return parameters === '' ? url : url + (url.includes('?') ? '&' : '?') + parameters;
}
