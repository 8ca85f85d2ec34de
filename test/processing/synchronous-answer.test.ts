import { describe, expect, it } from 'vitest';
import { internalsOf } from '../../src/adapter-kit/index.js';
import { createReceiver } from '../../src/index.js';
import { variantBPaid } from '../contract/fixtures.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const secret = 'whsec_synchronous_answer';

function delivery(payload: unknown) {
  const body = bytesOf(payload);
  return { method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body };
}

// Bytes in hand, node:crypto, the memory store and a synchronous handler: no step is asynchronous,
// so the adapters' fast path answers in the same turn (every await is a tick on the hot path).
describe('the fast path answers in the same turn when every step was synchronous', () => {
  it('inline: the handler ran and the answer is a plain result, not a promise', async () => {
    const handled: string[] = [];
    const receiver = createReceiver({ secret }).onAny((event) => void handled.push(event.name));
    const result = internalsOf(receiver).handle(delivery(variantBPaid));
    expect(result).not.toBeInstanceOf(Promise);
    expect(result).toMatchObject({ status: 200 });
    expect(handled).toEqual(['transaction_paid']);
    expect(internalsOf(receiver).handle(delivery(variantBPaid))).toMatchObject({ status: 200, reason: 'duplicate' });
    expect(await receiver.drain({ timeoutMs: 1000 })).toBe(true);
  });

  it('background: the event is queued and the 200 is a plain result, not a promise', async () => {
    const handled: string[] = [];
    const receiver = createReceiver({ secret, mode: 'background' }).onAny((event) => void handled.push(event.name));
    const result = internalsOf(receiver).handle(delivery(variantBPaid));
    expect(result).not.toBeInstanceOf(Promise);
    expect(result).toMatchObject({ status: 200 });
    expect(await receiver.drain({ timeoutMs: 5000 })).toBe(true);
    expect(handled).toEqual(['transaction_paid']);
  });

  it('an asynchronous handler makes the answer a promise, still answered 200 once it settled', async () => {
    const receiver = createReceiver({ secret }).onAny(async () => {
      await new Promise((resolve) => setImmediate(resolve));
    });
    const result = internalsOf(receiver).handle(delivery(variantBPaid));
    expect(result).toBeInstanceOf(Promise);
    await expect(result).resolves.toMatchObject({ status: 200 });
  });
});
