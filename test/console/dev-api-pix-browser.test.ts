import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseEmvFields } from '../../src/emulator/index.js';
import { runCli, type RunningCli } from '../helpers/cli-process.js';
import { useDevSession } from './dev-session.js';
import { seriousA11yViolations, useBrowser, watchedPage } from '../helpers/browser.js';

// Issue 30 §4: `pixhook dev --profile api-pix` as a real process (the standard PSP and a receiver over real mTLS),
// its sandbox page driven by Debian's Chromium.
const browser = useBrowser();
const session = useDevSession('pixhook-dev-api-pix-', ['--profile', 'api-pix']);
const runs = session.runs;
let url: string;
let dev: RunningCli;

beforeAll(() => {
  url = session.url();
  dev = session.process();
});

describe('pixhook dev --profile api-pix', () => {
  it('prints the receiver (https), the certificate files, and the console URL last', () => {
    const out = dev.stdout();
    expect(out.trim().split('\n').at(-1)).toBe(url);
    expect(out).toMatch(/receiver at https:\/\/127\.0\.0\.1:\d+\/webhooks\/pix \(mTLS/);
    for (const name of ['CA', 'client certificate', 'server certificate']) {
      const path = new RegExp(`${name} "([^"]+\\.pem)"`).exec(out)?.[1];
      expect(path, name).toBeDefined();
      expect(readFileSync(path!, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
    }
  });

  it('create a cob → the QR image and its location render → Pay → the row shows 200 and the handler ran once; another amount is held', async () => {
    const { page, watch } = await watchedPage(browser());
    await page.goto(url);
    expect(await seriousA11yViolations(page)).toEqual([]);
    // The standard PSP sends no transfers: none is offered.
    expect(await page.getByRole('button', { name: 'Send transfer' }).count()).toBe(0);
    await page.getByLabel('Amount (cents)').first().fill('2590');
    await page.getByRole('button', { name: 'Create charge' }).click();
    const charge = page.locator('article.charge').first();
    await charge.waitFor();
    const txid = (await charge.getAttribute('data-charge-id'))!;
    expect(txid).toMatch(/^[a-zA-Z0-9]{26,35}$/);
    const qr = charge.getByRole('img', { name: `QR code of charge ${txid}` });
    await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 100)).toBe(true);
    const location = (await charge.locator('.location code').textContent())!;
    expect(location).toMatch(/^127\.0\.0\.1:\d+\/qr\/v2\/[0-9a-f]{32}$/);
    const emv = await charge.locator('textarea').inputValue();
    // The BR Code of a dynamic charge points at the location, with the amount.
    expect(emv).toMatch(/^000201/);
    expect(emv).toContain(location);
    expect(parseEmvFields(emv)['54']).toBe('25.90');

    await charge.getByRole('button', { name: 'Pay' }).click();
    // The receiver's answer, as the journal recorded it (the page reloaded: the live feed is the gateway test's).
    const row = page.locator('table.deliveries tr[data-delivery-id]', { hasText: 'pix_received' }).filter({ hasText: txid });
    await expect
      .poll(async () => (await page.goto(url), (await row.count()) > 0 ? await row.first().getAttribute('data-status') : null), {
        timeout: 15_000,
      })
      .toBe('200');
    await expect.poll(() => runs(`pix_received ${txid}`)).toBe(1);
    await expect
      .poll(async () => (await page.goto(url), page.locator(`article[data-charge-id="${txid}"] .charge-status`).textContent()))
      .toBe('CONCLUIDA');

    // A second cob paid with another amount: the book holds it and the handler does not run.
    await page.getByLabel('Amount (cents)').first().fill('5000');
    await page.getByRole('button', { name: 'Create charge' }).click();
    const second = page.locator('article.charge').first();
    await expect.poll(() => second.getAttribute('data-charge-id')).not.toBe(txid);
    const other = (await second.getAttribute('data-charge-id'))!;
    await second.getByLabel('Other amount (cents)').fill('100');
    await second.getByRole('button', { name: 'Pay' }).click();
    await expect
      .poll(async () => (await page.goto(`${url}held`), await page.locator('body').textContent()) ?? '', { timeout: 15_000 })
      .toContain(other);
    expect(runs(`pix_received ${other}`)).toBe(0);

    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
    expect(await watch.cspViolations()).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('refund from the page: pix_refund_updated reaches the handler once', async () => {
    const { page } = await watchedPage(browser());
    await page.goto(url);
    const paid = page.locator('article.charge', { hasText: 'CONCLUIDA' }).first();
    const txid = (await paid.getAttribute('data-charge-id'))!;
    await paid.getByRole('button', { name: 'Refund' }).click();
    await expect.poll(() => runs(`pix_refund_updated ${txid}`), { timeout: 15_000 }).toBe(1);
    await page.context().close();
  }, 60_000);

  it('a delivery fault for one attempt from the page: the call answers 500, the PSP retries, 200, handled once', async () => {
    const { page } = await watchedPage(browser());
    await page.goto(url);
    await page.getByLabel('Fault', { exact: true }).selectOption('fail');
    await page.getByLabel('Attempts hit (empty: until cleared)').fill('1');
    await page.getByRole('button', { name: 'Inject fault' }).click();
    await expect.poll(() => page.locator('section[aria-labelledby="faults"]').textContent()).toMatch(/: fail, 0 hit of 1/);
    const before = await page.locator('article.charge').count();
    await page.getByLabel('Amount (cents)').first().fill('700');
    await page.getByRole('button', { name: 'Create charge' }).click();
    await expect.poll(() => page.locator('article.charge').count()).toBe(before + 1);
    const charge = page.locator('article.charge').first();
    const txid = (await charge.getAttribute('data-charge-id'))!;
    await charge.getByRole('button', { name: 'Pay' }).click();
    // The first attempt answers 500 (the fault), the PSP retries, the second is delivered: handled once.
    const gateway = page.locator('table.gateway tr[data-gateway-delivery]', { hasText: txid });
    await expect
      .poll(async () => (await page.goto(url), await gateway.first().getAttribute('data-state')), { timeout: 20_000 })
      .toBe('delivered');
    expect(await gateway.first().locator('.attempt').allTextContents()).toEqual([
      expect.stringContaining('500'),
      expect.stringContaining('200'),
    ]);
    await expect.poll(() => runs(`pix_received ${txid}`)).toBe(1);
    await page.context().close();
  }, 60_000);

  it('stops cleanly on SIGTERM', async () => {
    expect(await dev.stop()).toBe(0);
  });

  it('refuses the gateway-only flags: exit 2, one line', async () => {
    const result = await runCli(['dev', '--profile', 'api-pix', '--variant', 'b']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/--variant does not apply to --profile api-pix/);
    const unknown = await runCli(['dev', '--profile', 'psp']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--profile must be gateway, api-pix, mercado-pago, asaas, pagbank, woovi or pagarme, got "psp"/);
  });
});
