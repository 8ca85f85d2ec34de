import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { createReceiver } from '../../src/index.js';
import { startCli, type RunningCli } from '../helpers/cli-process.js';
import { seriousA11yViolations, useBrowser, watchedPage } from '../helpers/browser.js';

// Issue 31, "done when": `pixhook dev --forward-to` an Express app, Pay in real Chromium, and the console
// shows the app's answer. The app is a real Express server with pixhook's middleware; a charge of 40,40
// makes its handler fail, so the console must show the app's 500 and its words, not a dev receiver's 200.
const browser = useBrowser();
const secret = 'whsec_dev_forward_browser';
const handled: string[] = [];
let app: Server;
let dev: RunningCli;
let url: string;

beforeAll(async () => {
  const receiver = createReceiver({ secret });
  receiver.on('transaction_paid', (event) => {
    if (event.transaction.amountInCents === 4040) throw new Error('the shop database is down');
    handled.push(event.transaction.id);
  });
  const server = express();
  server.all('/webhooks/pix', createExpressMiddleware(receiver));
  app = server.listen(0, '127.0.0.1');
  await new Promise((resolve) => app.once('listening', resolve));
  const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/webhooks/pix`;
  dev = startCli(['dev', '--port', '0', '--secret', secret, '--forward-to', appUrl], { PIXHOOK_SECRET: undefined });
  url = (await dev.waitFor(/^(http:\/\/127\.0\.0\.1:\d+\/)$/m, 20_000))[1]!;
}, 30_000);
afterAll(async () => {
  await dev?.stop();
  await new Promise((resolve) => app?.close(resolve));
});

describe('pixhook dev --forward-to an Express app, in Chromium', () => {
  it('Pay → the app handles it, and the console shows the app’s 200; a failing app’s 500 shows with its words', async () => {
    const { page, watch } = await watchedPage(browser());
    await page.goto(url);

    async function createAndPay(cents: string): Promise<string> {
      await page.getByLabel('Amount (cents)').first().fill(cents);
      await page.getByRole('button', { name: 'Create charge' }).click();
      const charge = page.locator('article.charge').first();
      await expect.poll(() => charge.textContent()).toContain(`${cents.slice(0, -2)},${cents.slice(-2)}`);
      const id = (await charge.getAttribute('data-charge-id'))!;
      await charge.getByRole('button', { name: 'Pay' }).click();
      return id;
    }
    const row = (id: string) =>
      page.locator('table.deliveries tr[data-delivery-id]', { hasText: 'transaction_paid' }).filter({ hasText: id });
    // The page as a person reloads it: the app answers after the Pay redirect has rendered the page.
    const statusOf = async (id: string) => {
      await page.goto(url);
      return (await row(id).count()) === 0 ? undefined : row(id).first().getAttribute('data-status');
    };

    const paid = await createAndPay('2590');
    await expect.poll(() => statusOf(paid), { timeout: 15_000 }).toBe('200');
    expect(handled).toContain(paid);

    const failing = await createAndPay('4040');
    await expect.poll(() => statusOf(failing), { timeout: 15_000 }).toBe('500');
    expect(await row(failing).first().textContent()).toContain('handler_failed');
    expect(handled).not.toContain(failing);
    expect(await seriousA11yViolations(page)).toEqual([]);

    // The delivery page: the app's answer as the run, with its latency and its words.
    await row(failing).first().locator('a').first().click();
    const run = page.locator('tr[data-outcome="failed"]').first();
    await run.waitFor();
    expect(await run.textContent()).toMatch(/your app at http:\/\/127\.0\.0\.1:\d+\/webhooks\/pix answered 500/);
    expect(await run.textContent()).toMatch(/\d+\.\d ms/);
    expect(watch.pageErrors).toEqual([]);
    expect(await watch.cspViolations()).toEqual([]);
    await page.context().close();
  }, 90_000);
});
