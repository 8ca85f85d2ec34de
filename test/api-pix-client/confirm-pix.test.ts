// `confirm: apiPixClient` on the API Pix receiver: `GET /pix/{e2eid}` is read again before a pix_received runs.
import { afterEach, describe, expect, it } from 'vitest';
import { createApiPixReceiver } from '../../src/api-pix/index.js';
import type { ApiPixEmulator } from '../../src/emulator/index.js';
import { memoryPaymentBook } from '../../src/index.js';
import { apiPixBody, apiPixPix } from '../../src/testing/index.js';
import { clientFor, startApiPix, txid } from './emulator-setup.js';

const secret = 'confirm-pix-url-secret-0123456789';
let emulator: ApiPixEmulator | undefined;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await emulator?.close();
  emulator = undefined;
});

describe('confirm: apiPixClient', () => {
  it('runs a Pix the PSP knows with the same amount; holds another amount or an unknown one; 503 when the PSP is down', async () => {
    emulator = await startApiPix();
    const client = clientFor(emulator, { retry: { attempts: 1 } });
    cleanups.push(() => client.close());
    const handled: string[] = [];
    const book = memoryPaymentBook();
    const receiver = createApiPixReceiver({
      auth: { urlSecret: { secret } },
      book,
      confirm: { client, timeoutMs: 3000 },
    });
    receiver.on('pix_received', (event) => void handled.push(event.pix.endToEndId));
    const send = async (pix: ReturnType<typeof apiPixPix>) => {
      const result = await receiver.receive({
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: apiPixBody([pix]),
        url: `/webhooks/bank/pix?secret=${secret}`,
        peer: { address: '127.0.0.1' },
      });
      await receiver.drain();
      return result;
    };

    await client.createCharge({ txid: txid(1), amountInCents: 2500 });
    const paid = emulator.pay(txid(1));
    const e2e = paid['endToEndId'] as string;
    expect((await send(apiPixPix({ endToEndId: e2e, txid: txid(1), amountInCents: 2500 }))).status).toBe(200);
    expect(handled).toEqual([e2e]);

    // Another amount than the PSP's record, and a Pix the PSP never saw: not confirmed, held, never run.
    await client.createCharge({ txid: txid(2), amountInCents: 4000 });
    const other = emulator.pay(txid(2))['endToEndId'] as string;
    const forged = await send(apiPixPix({ endToEndId: other, txid: txid(2), amountInCents: 400000 }));
    const unknown = await send(apiPixPix({ txid: null, amountInCents: 100 }));
    expect(forged.body).toContain('held');
    expect(unknown.body).toContain('held');
    const held = await book.held();
    expect(held.map((h) => h.event.name)).toEqual(['pix_received', 'pix_received']);
    for (const h of held) expect(h.violations.map((v) => v.reason)).toContain('not_confirmed');
    expect(handled).toEqual([e2e]);

    // The PSP down: 503 gateway_unavailable, and the claim is given back so the PSP's retry runs it.
    await client.createCharge({ txid: txid(3), amountInCents: 700 });
    const later = emulator.pay(txid(3))['endToEndId'] as string;
    await emulator.close();
    emulator = undefined;
    const down = await send(apiPixPix({ endToEndId: later, txid: txid(3), amountInCents: 700 }));
    expect(down.status).toBe(503);
    expect(down.body).toContain('gateway_unavailable');
    // Given back, not kept: the retry is judged again (still 503), never answered as a duplicate.
    const retried = await send(apiPixPix({ endToEndId: later, txid: txid(3), amountInCents: 700 }));
    expect([retried.status, retried.body.includes('gateway_unavailable')]).toEqual([503, true]);
    expect(handled).toEqual([e2e]);
  });
});
