import { expect } from 'vitest';
import { createReceiver, type DeliveryJournal } from '../../src/index.js';
import { buildPayload } from '../../src/testing/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const secret = 'whsec_forged_flood_secret';

/**
 * Issue 31: genuine deliveries, then a flood of forged ones through a real receiver, then one more
 * genuine. Every genuine entry (with the body Replay needs) is still there; the forged ones are kept
 * to their own bound.
 */
export async function floodWithForgeries(journal: DeliveryJournal, options: { genuine: number; forged: number; maxUnverified: number }) {
  const receiver = createReceiver({ secret, journal }).on('transaction_paid', () => undefined);
  const deliver = async (id: string, signed: boolean) => {
    const body = bytesOf(buildPayload('transaction_paid', { id, amountInCents: 100 }));
    const headers = { 'x-signature': signed ? signBytes(body, secret) : `sha256=${'0'.repeat(64)}` };
    return (await receiver.receive({ method: 'POST', headers, body, remoteAddress: '203.0.113.7' })).status;
  };
  for (let i = 0; i < options.genuine; i++) expect(await deliver(`txn_genuine_${i}`, true)).toBe(200);
  for (let i = 0; i < options.forged; i += 50) {
    const batch = Array.from({ length: Math.min(50, options.forged - i) }, (_, k) => deliver(`txn_forged_${i + k}`, false));
    expect(new Set(await Promise.all(batch))).toEqual(new Set([401]));
    await receiver.drain();
  }
  expect(await deliver('txn_genuine_last', true)).toBe(200);
  await receiver.drain();
  expect(receiver.metrics().journalFailures).toBe(0);

  const entries = await journal.list({ limit: 1000 });
  const genuine = entries.filter((e) => e.verified);
  const forged = entries.filter((e) => !e.verified);
  expect(genuine.map((e) => e.resourceId).sort()).toEqual(
    [...Array.from({ length: options.genuine }, (_, i) => `txn_genuine_${i}`), 'txn_genuine_last'].sort(),
  );
  expect(genuine.every((e) => e.body !== undefined)).toBe(true);
  expect(forged).toHaveLength(options.maxUnverified);
  expect(forged.every((e) => e.status === 401 && e.body === undefined)).toBe(true);
  // Newest first, the two kinds merged by time: the last genuine delivery comes first, then the newest forgeries.
  expect(entries[0]!.resourceId).toBe('txn_genuine_last');
  const ids = entries.map((e) => e.id);
  expect(ids).toEqual([...ids].sort().reverse());
}
