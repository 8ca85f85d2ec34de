import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createReceiver, type PixEvent } from '../../src/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// Issue 10's property, end to end: any signed event with sound essentials and arbitrary secondary
// junk is answered 200, handled once (its retry is a duplicate), and keeps its essentials exact.
const secret = 'whsec_lossless';
const junk = fc.jsonValue({ maxDepth: 2 });
const secondary = (keys: string[]) => fc.record(Object.fromEntries(keys.map((k) => [k, junk])), { requiredKeys: [] });

const essentials = fc.record({
  id: fc.oneof(
    fc.string({ minLength: 1, maxLength: 20 }),
    fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }).map((n) => n),
  ),
  status: fc.constantFrom('paid', 'pending', 'refunded', 'canceled', 'expired', 'weird:status'),
  amount: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
});

const shapes = fc.oneof(
  fc
    .tuple(essentials, secondary(['netAmountInCents', 'customer', 'endToEndId', 'refund', 'fees', 'pix', 'extra']))
    .map(([e, junkFields]) => ({
      essentials: e,
      name: 'transaction_paid' as const,
      payload: {
        event: 'transaction_paid',
        timestamp: '2026-11-23T10:00:00Z',
        data: { ...junkFields, id: e.id, status: e.status, amountInCents: e.amount },
      },
    })),
  fc
    .tuple(essentials, secondary(['pix', 'netAmount', 'fees', 'customer', 'refund', 'extra']), secondary(['scope', 'type', 'extraTop']))
    .map(([e, junkFields, top]) => ({
      essentials: e,
      name: 'transaction_paid' as const,
      payload: {
        ...top,
        id: 'd',
        event: 'transaction_paid',
        type: 'transaction',
        transaction: { ...junkFields, id: e.id, amount: e.amount, status: e.status },
      },
    })),
  fc.tuple(essentials, secondary(['pix', 'fees', 'pixKey', 'netAmount', 'extra'])).map(([e, junkFields]) => ({
    essentials: e,
    name: 'transfer_completed' as const,
    payload: {
      id: 'd',
      event: 'transfer_completed',
      type: 'transfer',
      transfer: { ...junkFields, id: e.id, amount: e.amount, status: e.status },
    },
  })),
);

describe('lossless intake (property)', () => {
  it('sound essentials + arbitrary secondary junk → 200, handled once, essentials exact', async () => {
    await fc.assert(
      fc.asyncProperty(shapes, async ({ essentials: e, name, payload }) => {
        const handled: PixEvent[] = [];
        const receiver = createReceiver({ secret }).onAny((event) => void handled.push(event));
        const body = bytesOf(payload);
        const request = { method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body };
        const first = await receiver.receive(request);
        expect(first.status).toBe(200);
        expect((await receiver.receive(request)).reason).toBe('duplicate');
        expect(handled).toHaveLength(1);
        const event = handled[0]!;
        expect(event.name).toBe(name);
        const resource = event.kind === 'transaction' ? event.transaction : event.transfer;
        // A transaction_paid is always judged as a payment (read-status.ts): any other stated status reads as paid.
        const status = name === 'transaction_paid' ? 'paid' : e.status;
        expect(resource).toMatchObject({ id: String(e.id), status, amountInCents: e.amount });
        expect(event.payload).toEqual(JSON.parse(JSON.stringify(payload)));
      }),
      { numRuns: 300, seed: 1123 },
    );
  });
});
