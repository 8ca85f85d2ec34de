import { normalizeEvent } from '../../src/events/normalize-event.js';
import type { DedupeStore, PixEvent, Processing } from '../../src/index.js';
import { orderLeasesOf } from '../../src/processing/resource-order.js';
import { registerOrderLeases } from '../../src/shared/order-lease.js';

/** One handler run: logical start and end ticks (a shared counter: no clock, no timing). */
export interface Span {
  charge: string;
  name: string;
  instance: string;
  start: number;
  end: number;
}

const rank: Record<string, number> = { transaction_paid: 1, transaction_refunded: 2 };

/**
 * Records every handler's start and end. The handlers wait on one gate, which opens once every charge
 * has a handler started and its other event has shown where it is: it started too (no lease: both then
 * wait on the gate together, an overlap), was answered, or was refused the charge's lease at least once
 * (the lease keeps it waiting). No clock: the gate waits for facts, never for time.
 */
export function orderRecorder(charges: readonly string[]) {
  let clock = 0;
  const spans: Span[] = [];
  const started = new Map<string, number>();
  const refused = new Set<string>();
  const answered = new Map<string, number>();
  let opened = false;
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const check = (): void => {
    if (opened) return;
    const shown = (charge: string) =>
      (started.get(charge) ?? 0) >= 1 && ((started.get(charge) ?? 0) + (answered.get(charge) ?? 0) >= 2 || refused.has(charge));
    if (!charges.every(shown)) return;
    opened = true;
    open();
  };
  const handler =
    (instance: string) =>
    async (event: PixEvent): Promise<void> => {
      const charge = event.kind === 'transaction' ? event.transaction.id : event.transfer.id;
      const span: Span = { charge, name: event.name, instance, start: ++clock, end: 0 };
      spans.push(span);
      started.set(charge, (started.get(charge) ?? 0) + 1);
      check();
      await gate;
      span.end = ++clock;
    };
  return {
    spans,
    started,
    register(processing: Processing, instance: string): void {
      processing.on(['transaction_paid', 'transaction_refunded'], handler(instance));
    },
    /** A delivery of `charge` was answered; `withoutRun` when its handlers will not run for it (held, duplicate). */
    answered(charge: string, withoutRun: boolean): void {
      if (withoutRun) answered.set(charge, (answered.get(charge) ?? 0) + 1);
      check();
    },
    /** Wraps the leases a store declared (before any processing uses it) to see refused takes. */
    watch(store: DedupeStore): void {
      const leases = orderLeasesOf(store);
      const seeRefusal = <T>(resource: string, fence: T): T => {
        if (fence === undefined) {
          refused.add(resource.slice(2).replace(/#run$/, ''));
          check();
        }
        return fence;
      };
      const takeMany = leases.takeMany?.bind(leases);
      registerOrderLeases(store, {
        ...leases,
        take: (resource, owner, ttlMs, ask) => {
          const fence = leases.take(resource, owner, ttlMs, ask);
          return fence instanceof Promise ? fence.then((value) => seeRefusal(resource, value)) : seeRefusal(resource, fence);
        },
        // A durable worker's run leases, several in one step.
        ...(takeMany && {
          takeMany: async (given, takes, ttlMs, ask) => {
            const fences = await takeMany(given, takes, ttlMs, ask);
            return takes.map(({ resource }, i) => seeRefusal(resource, fences[i]));
          },
        }),
      });
    },
  };
}

/** Every pair of one charge's handlers that overlapped, or where a lower status started after a higher one finished. */
export function orderViolations(spans: readonly Span[]): string[] {
  const found: string[] = [];
  const byCharge = new Map<string, Span[]>();
  for (const span of spans) byCharge.set(span.charge, [...(byCharge.get(span.charge) ?? []), span]);
  for (const [charge, list] of byCharge) {
    for (const a of list) {
      if (a.end === 0) found.push(`${charge}: ${a.name} never finished`);
      for (const b of list) {
        if (a === b) continue;
        if (a.start < b.start && b.start < a.end) found.push(`${charge}: ${b.name} started while ${a.name} ran`);
        if (rank[a.name]! < rank[b.name]! && a.start > b.end) found.push(`${charge}: ${a.name} started after ${b.name} finished`);
      }
    }
  }
  return found;
}

export function paidEvent(id: string, amountInCents = 1000): PixEvent {
  return eventOf({ event: 'transaction_paid', timestamp: '2026-11-27T02:00:00Z', data: { id, status: 'paid', amountInCents } });
}

export function refundedEvent(id: string, amountInCents = 1000): PixEvent {
  return eventOf({ event: 'transaction_refunded', timestamp: '2026-11-27T02:00:05Z', data: { id, status: 'refunded', amountInCents } });
}

export function eventOf(value: unknown): PixEvent {
  const normalized = normalizeEvent(value, { source: 'webhook' });
  if (!normalized.ok || normalized.event.kind === 'unknown') throw new Error('test event does not normalize');
  return normalized.event;
}

/**
 * Each charge gets paid on one instance and refunded on the other at once (alternating which gets which).
 * Like the gateway, a delivery answered 503 (`store_unavailable` on a loaded machine) is sent again.
 */
export async function deliverPairs(
  instances: readonly [Processing, Processing],
  charges: readonly string[],
  recorder: { answered(charge: string, withoutRun: boolean): void },
): Promise<{ reason?: string | undefined }[]> {
  const send = async (processing: Processing, event: PixEvent, charge: string) => {
    for (let attempt = 1; ; attempt++) {
      const result = await processing.accept(event);
      if (!retried.has(result.reason ?? '') || attempt === 10) {
        // No reason: handled (inline, after its run) or accepted (its run comes later).
        recorder.answered(charge, result.reason !== undefined);
        return result;
      }
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  };
  return Promise.all(
    charges.flatMap((charge, i) => {
      const [first, second] = i % 2 === 0 ? instances : [instances[1], instances[0]];
      return [send(first, paidEvent(charge), charge), send(second, refundedEvent(charge), charge)];
    }),
  );
}

const retried = new Set(['store_unavailable', 'in_flight']);
