import fc from 'fast-check';
import type { PixEvent, TransactionEventName } from '../../src/index.js';
import type { PaymentBook } from '../../src/book/payment-book.js';
import { checkPolicy } from '../../src/book/payment-policy.js';
import { chargeEvent, transferEvent } from './book-events.js';

// Random sequences of everything a book is asked, for differential properties: the same sequence given
// to the memory book and to a shared backend must give the same answers and the same resources.

export type BookOperation =
  | { op: 'record'; event: PixEvent; dedupeKey: string; at: number; confirmed?: boolean; policyFlags: boolean }
  | { op: 'retry'; event: PixEvent; dedupeKey: string }
  | { op: 'expect'; id: string; amountInCents: number; payerDocument?: string; expiresAt?: number }
  | { op: 'release'; index: number; ok: boolean }
  | { op: 'dismiss'; index: number };

export const t0 = Date.parse('2026-05-01T12:00:00Z');
const names: TransactionEventName[] = [
  'transaction_created',
  'transaction_paid',
  'transaction_refunded',
  'transaction_updated',
  'transaction_canceled',
  'transaction_infraction',
];

const chargeOperation = fc
  .record({
    id: fc.constantFrom('c1', 'c2'),
    name: fc.constantFrom(...names),
    amount: fc.constantFrom(1000, 900),
    endToEndId: fc.constantFrom(undefined, 'E1', 'E2'),
    document: fc.constantFrom(undefined, '123.456.789-09', '98765432100', '***.456.789-**'),
    channel: fc.constantFrom('postback', 'user', 'reconcile'),
    offset: fc.integer({ min: -3_600_000, max: 3_600_000 }),
    stamped: fc.boolean(),
    confirmed: fc.constantFrom(undefined, true, false),
    policyFlags: fc.boolean(),
    infraction: fc.record({ id: fc.constantFrom(undefined, 'med_1'), status: fc.constantFrom(undefined, 'open', 'CLOSED') }),
  })
  .map(({ id, name, amount, endToEndId, document, channel, offset, stamped, confirmed, policyFlags, infraction }): BookOperation => {
    const delivery = {
      ...(channel === 'reconcile' ? { source: 'reconcile' as const } : { scope: channel }),
      ...(stamped && { timestamp: new Date(t0 + offset).toISOString() }),
      deliveryId: `d-${name}-${amount}`,
    };
    const fields = {
      id,
      amountInCents: amount,
      ...(name === 'transaction_updated' && { status: 'expired' as const }),
      ...(endToEndId !== undefined && { endToEndId }),
      ...(document !== undefined && { payer: { document } }),
      ...(name === 'transaction_infraction' && { infraction: { ...infraction, openedAt: '2026-05-01T10:00:00Z' } }),
    };
    const event = chargeEvent(name, fields, delivery);
    return {
      op: 'record',
      event,
      dedupeKey: `${name}:${id}:${amount}:${endToEndId ?? ''}`,
      at: t0 + Math.abs(offset),
      ...(confirmed !== undefined && { confirmed }),
      policyFlags,
    };
  });

const transferOperation = fc
  .record({
    name: fc.constantFrom(
      'transfer_created',
      'transfer_updated',
      'transfer_completed',
      'transfer_canceled',
    ) as fc.Arbitrary<'transfer_created'>,
  })
  .map(({ name }): BookOperation => {
    const event = transferEvent(name, { id: 'c1' });
    return { op: 'record', event, dedupeKey: `${name}:o`, at: t0, policyFlags: false };
  });

export const bookOperation: fc.Arbitrary<BookOperation> = fc.oneof(
  { weight: 6, arbitrary: chargeOperation },
  { weight: 1, arbitrary: transferOperation },
  {
    weight: 1,
    arbitrary: chargeOperation.map((op) => ({
      op: 'retry' as const,
      event: (op as { event: PixEvent }).event,
      dedupeKey: (op as { dedupeKey: string }).dedupeKey,
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({
        op: fc.constant('expect' as const),
        id: fc.constantFrom('c1', 'c2', 'c3'),
        amountInCents: fc.constantFrom(1000, 900),
        payerDocument: fc.constantFrom(undefined, '123.456.789-09'),
        expiresAt: fc.constantFrom(undefined, t0 - 60_000, t0 + 60_000),
      })
      .map((op) => JSON.parse(JSON.stringify(op)) as BookOperation),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('release' as const), index: fc.nat(5), ok: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('dismiss' as const), index: fc.nat(5) }) },
);

const flagAll = checkPolicy({ stale_status: 'flag', amount_mismatch: 'flag', duplicate_payment: 'flag' });

/** Runs `ops` one after another; the answers and the books' contents, with held ids replaced by their order of appearance. */
export async function runOperations(book: PaymentBook, ops: readonly BookOperation[]): Promise<unknown> {
  const answers: unknown[] = [];
  const heldIds: string[] = [];
  for (const op of ops) {
    if (op.op === 'record') {
      const context = {
        dedupeKey: op.dedupeKey,
        at: op.at,
        ...(op.confirmed !== undefined && { confirmed: op.confirmed }),
        ...(op.policyFlags && { policy: flagAll }),
      };
      answers.push(await book.record(op.event, context));
    } else if (op.op === 'retry') {
      answers.push((await book.retryOfHeld(op.event, { dedupeKey: op.dedupeKey, at: t0 })) ?? 'none');
    } else if (op.op === 'expect') {
      const { op: _op, ...charge } = op;
      answers.push(await book.expect(charge));
    } else {
      const held = await book.held();
      for (const entry of held) if (!heldIds.includes(entry.heldId)) heldIds.push(entry.heldId);
      const target = held[op.index % Math.max(1, held.length)];
      if (target === undefined) continue;
      if (op.op === 'dismiss') answers.push(await book.dismiss(target.heldId, 'checked'));
      else {
        const claim = await book.claimRelease(target.heldId);
        answers.push(claim.ok ? await book.finishRelease(target.heldId, op.ok) : claim);
      }
    }
  }
  const state = {
    answers,
    resources: await Promise.all(['c1', 'c2', 'c3'].map((id) => book.get(id))),
    held: await book.held(),
    // Disputes of one age have no order of their own: compare them sorted.
    disputes: byResource(await book.disputes()),
    open: byResource(await book.disputes({ open: true })),
  };
  for (const entry of state.held) if (!heldIds.includes(entry.heldId)) heldIds.push(entry.heldId);
  // Held ids are random per backend: compare them by the order they were first seen.
  return JSON.parse(
    JSON.stringify(state, (_key, value: unknown) =>
      typeof value === 'string' && heldIds.includes(value) ? `held#${heldIds.indexOf(value)}` : value,
    ),
  );
}

function byResource<T extends { resourceId: string; ageMs: number }>(list: T[]): T[] {
  return list.sort((a, b) => b.ageMs - a.ageMs || a.resourceId.localeCompare(b.resourceId));
}
