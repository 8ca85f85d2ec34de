// The one scenario of a Pix to another key, run on every payment book (memory, Redis, Postgres): held as
// `unknown_key`, never run until a person releases it, then once; its redeliveries answered as other holds'.
import { expect } from 'vitest';
import { createApiPixReceiver, type PixReceivedEvent } from '../../src/api-pix/index.js';
import type { PaymentBook } from '../../src/book/payment-book.js';
import type { DedupeStore } from '../../src/index.js';
import { apiPixBody, apiPixPix, seededRandom } from '../../src/testing/index.js';
import { call, urlSecret } from './fixtures.js';

export const mine = 'loja@example.com';
export const theirs = 'outra@example.com';

/** A receiver with `keys` and `book`, and the endToEndIds its `pix_received` handler ran, with the violations it heard. */
export function keyedReceiver(book: PaymentBook, store?: DedupeStore) {
  const ran: { endToEndId: string; reasons: string[]; keyKnown: false | undefined }[] = [];
  const receiver = createApiPixReceiver({
    auth: { urlSecret: { secret: urlSecret } },
    keys: [mine],
    book,
    ...(store !== undefined && { store }),
  }).on('pix_received', (event: PixReceivedEvent) => {
    ran.push({
      endToEndId: event.pix.endToEndId,
      reasons: (event.violations ?? []).map((violation) => violation.reason),
      keyKnown: event.keyKnown,
    });
  });
  return { receiver, ran };
}

/**
 * Another key held, the merchant's own run, a keyless Pix held; a batch of 3 with one foreign answered 200 with
 * 2 run and 1 held; every held one's redelivery answered `held`; a release runs its handler once, then `duplicate`.
 */
export async function heldForAnotherKey(book: PaymentBook, store?: DedupeStore, seed = 1): Promise<void> {
  const random = seededRandom(seed);
  const { receiver, ran } = keyedReceiver(book, store);
  const ids = () => ran.map((entry) => entry.endToEndId);

  const foreign = apiPixPix({ key: theirs, random });
  const first = await receiver.receive(call(apiPixBody([foreign])));
  expect([first.status, first.reason]).toEqual([200, 'held']);
  expect(ran).toEqual([]);

  const own = apiPixPix({ key: mine, random });
  const ownResult = await receiver.receive(call(apiPixBody([own])));
  expect([ownResult.status, ownResult.reason]).toEqual([200, undefined]);
  expect(ids()).toEqual([own.endToEndId]);

  const keyless = apiPixPix({ random });
  expect((await receiver.receive(call(apiPixBody([keyless])))).reason).toBe('held');

  const batch = [apiPixPix({ key: mine, random }), apiPixPix({ key: theirs, random }), apiPixPix({ key: mine, random })];
  const batchResult = await receiver.receive(call(apiPixBody(batch)));
  expect([batchResult.status, batchResult.reason]).toEqual([200, undefined]);
  expect(ids()).toEqual([own.endToEndId, batch[0]!.endToEndId, batch[2]!.endToEndId]);

  const held = await book.held();
  const heldIds = held.map((entry) => (entry.event as PixReceivedEvent).pix.endToEndId).sort();
  expect(heldIds).toEqual([foreign.endToEndId, keyless.endToEndId, batch[1]!.endToEndId].sort());
  for (const entry of held) {
    expect(entry.violations.map((violation) => [violation.reason, violation.action])).toEqual([['unknown_key', 'hold']]);
    expect(entry.state).toBe('held');
  }

  // The PSP's retries: the same holds, never a second one, never a run.
  expect((await receiver.receive(call(apiPixBody([foreign])))).reason).toBe('held');
  expect((await receiver.receive(call(apiPixBody(batch)))).status).toBe(200);
  expect(await book.held()).toHaveLength(3);
  expect(ran).toHaveLength(3);

  // A person says the foreign one is the merchant's after all: its handler runs once, hearing why it was held.
  const heldForeign = held.find((entry) => (entry.event as PixReceivedEvent).pix.endToEndId === foreign.endToEndId)!;
  const released = await Promise.all([receiver.release(heldForeign.heldId), receiver.release(heldForeign.heldId)]);
  expect(released.map((result) => result.ok).sort()).toEqual([false, true]);
  expect(ran.filter((entry) => entry.endToEndId === foreign.endToEndId)).toEqual([
    { endToEndId: foreign.endToEndId, reasons: ['unknown_key'], keyKnown: false },
  ]);
  const again = await receiver.receive(call(apiPixBody([foreign])));
  expect([again.status, again.reason]).toEqual([200, 'duplicate']);
  expect(ran).toHaveLength(4);
  expect((await book.held()).map((entry) => (entry.event as PixReceivedEvent).pix.endToEndId).sort()).toEqual(
    [keyless.endToEndId, batch[1]!.endToEndId].sort(),
  );
  await receiver.close();
}
