import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type RunningCli } from '../helpers/cli-process.js';
import { useDevSession } from './dev-session.js';
import { seriousA11yViolations, timeToFirstRender, useBrowser, watchedPage } from '../helpers/browser.js';

// Issue 23: `pixhook dev` as a real process, its sandbox page driven by Debian's Chromium.
const browser = useBrowser();
const session = useDevSession('pixhook-dev-');
const runs = session.runs;
let url: string;
let dev: RunningCli;
let shots: string;
const firstRender: Record<string, number> = {};

beforeAll(() => {
  url = session.url();
  dev = session.process();
  shots = process.env['PIXHOOK_SCREENSHOTS'] ?? session.dir();
});
afterAll(() => {
  writeFileSync(join(shots, 'first-render-dev.json'), JSON.stringify(firstRender, undefined, 2));
});

describe('pixhook dev', () => {
  it('prints its URL as the last line of start-up', () => {
    expect(dev.stdout().trim().split('\n').at(-1)).toBe(url);
  });

  it('create a charge → the QR image renders → Pay → the delivery row shows 200 and the handler ran once', async () => {
    const { page, watch } = await watchedPage(browser());
    await page.goto(url);
    firstRender['sandbox'] = await timeToFirstRender(page);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByLabel('Amount (cents)').first().fill('2590');
    await page.getByRole('button', { name: 'Create charge' }).click();
    const charge = page.locator('article.charge').first();
    await charge.waitFor();
    const id = (await charge.getAttribute('data-charge-id'))!;
    const qr = charge.getByRole('img', { name: `QR code of charge ${id}` });
    await expect.poll(() => qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 100)).toBe(true);
    expect(await charge.locator('textarea').inputValue()).toMatch(/^000201/);
    await charge.getByRole('button', { name: 'Pay' }).click();
    const row = page.locator('table.deliveries tr[data-delivery-id]', { hasText: 'transaction_paid' }).filter({ hasText: id });
    await expect.poll(() => row.first().getAttribute('data-status'), { timeout: 15_000 }).toBe('200');
    await expect.poll(() => runs(`transaction_paid ${id}`)).toBe(1);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.screenshot({ path: join(shots, 'dev-sandbox.png'), fullPage: true });
    expect(watch.consoleErrors).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
    expect(await watch.cspViolations()).toEqual([]);

    for (const [name, path] of [
      ['deliveries', 'deliveries'],
      ['resource', `resources/${id}`],
      ['held', 'held'],
      ['quarantine', 'quarantine'],
      ['reconciler', 'reconciler'],
    ] as const) {
      const response = await page.goto(`${url}${path}`);
      expect(response?.status()).toBe(200);
      firstRender[name] = await timeToFirstRender(page);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.screenshot({ path: join(shots, `dev-${name}.png`), fullPage: true });
    }
    expect(watch.consoleErrors).toEqual([]);
    expect(await watch.cspViolations()).toEqual([]);
    await page.context().close();
  }, 90_000);

  it('stops cleanly on SIGTERM', async () => {
    expect(await dev.stop()).toBe(0);
  });

  it('`pixhook console` refuses a non-loopback bind without a token: exit 2, one line', async () => {
    const result = await runCli(['console', '--host', '0.0.0.0', '--redis', 'redis://127.0.0.1:1'], {
      env: { PIXHOOK_CONSOLE_TOKEN: undefined },
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/--token .*\(pixhook console --help\)$/m);
  });
});
