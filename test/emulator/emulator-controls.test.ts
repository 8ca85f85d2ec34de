import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { customer } from '../helpers/customer.js';
import { startRecorder } from './webhook-receiver.js';

// Issue 31: a cross-origin page paid a charge through /_emulator, and a signed webhook reached the dev receiver.
let emulator: Emulator;
let recorder: Awaited<ReturnType<typeof startRecorder>>;
beforeAll(async () => {
  emulator = await startEmulator({ variant: 'b' });
  recorder = await startRecorder();
});
afterAll(async () => {
  await emulator?.close();
  await recorder?.close();
});

function post(path: string, headers: Record<string, string>, body = ''): Promise<number> {
  const url = new URL(`${emulator.url}${path}`);
  return new Promise((resolve, reject) => {
    request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    })
      .on('error', reject)
      .end(body);
  });
}

describe("the emulator's /_emulator controls", () => {
  it('refuse a foreign Host, another origin, a cross-site fetch and a non-JSON body; the charge stays unpaid', async () => {
    const client = createClient({ ...emulator.credentials, baseUrl: emulator.url, variant: 'b' });
    const charge = await client.createCharge({ amountInCents: 1000, customer, postbackUrl: recorder.url });
    const pay = `/_emulator/transactions/${charge.id}/pay`;
    const host = new URL(emulator.url).host;
    const json = { 'content-type': 'application/json' };
    expect(await post(pay, { host: 'evil.example', ...json }, '{}')).toBe(403);
    expect(await post(pay, { host: 'x@127.0.0.1', ...json }, '{}')).toBe(403);
    expect(await post(pay, { host, origin: 'http://evil.example', ...json }, '{}')).toBe(403);
    expect(await post(pay, { host, 'sec-fetch-site': 'cross-site' })).toBe(403);
    expect(await post(pay, { host, 'content-type': 'text/plain' }, '{}')).toBe(415);
    expect(await post(pay, { host, 'content-type': 'application/x-www-form-urlencoded' }, 'a=1')).toBe(415);
    expect(await post(pay, { host }, '{}')).toBe(415);
    await emulator.idle();
    expect(emulator.charges().find((c) => c.id === charge.id)?.status).not.toBe('paid');
    expect(recorder.received.some((r) => r.body.includes('transaction_paid'))).toBe(false);

    expect(await post(pay, { host, origin: emulator.url, 'sec-fetch-site': 'same-origin', ...json }, '{}')).toBe(200);
    await emulator.idle();
    expect(recorder.received.some((r) => r.body.includes('transaction_paid'))).toBe(true);
  });

  it('take a control without a body (no content type needed) from this machine', async () => {
    const client = createClient({ ...emulator.credentials, baseUrl: emulator.url, variant: 'b' });
    const charge = await client.createCharge({ amountInCents: 1000, customer, postbackUrl: recorder.url });
    expect(await post(`/_emulator/transactions/${charge.id}/expire`, { host: new URL(emulator.url).host })).toBe(200);
    expect(await post(`/_emulator/transactions/${charge.id}/expire`, { host: `localhost:${emulator.port}` })).not.toBe(403);
  });
});
