import { normalizeEvent } from '../../src/events/normalize-event.js';
import type { PixEvent, Processing } from '../../src/index.js';

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
 * Records every handler's start and end. The handlers wait on one gate that opens once `gateAfter`
 * charges have a handler started: until then every charge's second event must be kept waiting by the
 * order lease (without it, both handlers of a charge start and wait on the gate together).
 */
export function orderRecorder(gateAfter: number) {
  let clock = 0;
  const spans: Span[] = [];
  const started = new Set<string>();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const handler =
    (instance: string) =>
    async (event: PixEvent): Promise<void> => {
      const charge = event.kind === 'transaction' ? event.transaction.id : event.transfer.id;
      const span: Span = { charge, name: event.name, instance, start: ++clock, end: 0 };
      spans.push(span);
      started.add(charge);
      if (started.size >= gateAfter) open();
      await gate;
      span.end = ++clock;
    };
  const register = (processing: Processing, instance: string): void => {
    processing.on(['transaction_paid', 'transaction_refunded'], handler(instance));
  };
  return { spans, register, open, started };
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

/** 40 charges, each getting paid on one instance and refunded on the other at once (alternating which gets which). */
export async function deliverPairs(
  instances: readonly [Processing, Processing],
  charges: readonly string[],
): Promise<{ reason?: string | undefined }[]> {
  return Promise.all(
    charges.flatMap((charge, i) => {
      const [first, second] = i % 2 === 0 ? instances : [instances[1], instances[0]];
      return [first.accept(paidEvent(charge)), second.accept(refundedEvent(charge))];
    }),
  );
}
