import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { customer } from '../helpers/customer.js';
import { useBrowser } from '../helpers/browser.js';
import { startRecorder } from './webhook-receiver.js';

// Issue 31: a cross-origin page paid a charge through /_emulator. In Chromium: a page on another
// origin tries a fetch (no-cors, text/plain), a JSON fetch and a form post; the charge stays unpaid.
const browser = useBrowser();
let emulator: Emulator;
let recorder: Awaited<ReturnType<typeof startRecorder>>;
let evil: Server;
let evilOrigin: string;

beforeAll(async () => {
  emulator = await startEmulator({ variant: 'b' });
  recorder = await startRecorder();
  evil = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title>'));
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  evilOrigin = `http://localhost:${(evil.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await emulator?.close();
  await recorder?.close();
  await new Promise<void>((resolve) => (evil ? evil.close(() => resolve()) : resolve()));
});

describe("the emulator's controls and a page on another origin", () => {
  it('cannot pay a charge by fetch or by form', async () => {
    const client = createClient({ ...emulator.credentials, baseUrl: emulator.url, variant: 'b' });
    const charge = await client.createCharge({ amountInCents: 1000, customer, postbackUrl: recorder.url });
    const pay = `${emulator.url}/_emulator/transactions/${charge.id}/pay`;
    const context = await browser().newContext();
    const page = await context.newPage();
    await page.goto(`${evilOrigin}/`);
    await page.evaluate(async (url) => {
      await fetch(url, { method: 'POST', mode: 'no-cors', body: '{}' }).catch(() => undefined);
      await fetch(url, { method: 'POST', mode: 'no-cors' }).catch(() => undefined);
      await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).catch(() => undefined);
    }, pay);
    await page.evaluate((url) => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = url;
      document.body.append(form);
      form.submit();
    }, pay);
    await page.waitForLoadState('load');
    await emulator.idle();
    const paid = emulator.requests().filter((r) => r.path.endsWith('/pay'));
    expect(paid.length).toBeGreaterThanOrEqual(3);
    expect(paid.every((r) => r.status === 403)).toBe(true);
    expect(recorder.received.some((r) => r.body.includes('transaction_paid'))).toBe(false);
    await context.close();
  }, 30_000);
});
