import { describe, expect, it } from 'vitest';
import { seriousA11yViolations, useBrowser, watchedPage } from '../helpers/browser.js';
import { useDevSession, type DevSession } from './dev-session.js';

// Issue 38 §4: `pixhook dev --profile <psp>` as a real process for each PSP, its sandbox page driven by
// Debian's Chromium: create a charge, Pay, one delivery row answered 200, the handler ran once, axe clean.
const browser = useBrowser();
const psps = ['mercado-pago', 'asaas', 'pagbank', 'woovi', 'pagarme'] as const;
const sessions = new Map<string, DevSession>(psps.map((psp) => [psp, useDevSession(`pixhook-dev-${psp}-`, ['--profile', psp])]));

describe.each(psps)('pixhook dev --profile %s in Chromium', (psp) => {
  it('create a charge → Pay → one row answered 200, the handler ran once; the page is axe clean', async () => {
    const session = sessions.get(psp)!;
    const url = session.url();
    const { page, watch } = await watchedPage(browser());
    await page.goto(url);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByLabel('Amount (cents)').first().fill('2590');
    await page.getByRole('button', { name: 'Create charge' }).click();
    const charge = page.locator('article.charge').first();
    await charge.waitFor();
    const id = (await charge.getAttribute('data-charge-id'))!;
    expect(id.length).toBeGreaterThan(5);
    await charge.getByRole('button', { name: 'Pay' }).click();
    const row = page.locator('table.deliveries tr[data-delivery-id]', { hasText: 'transaction_paid' }).filter({ hasText: id });
    await expect
      .poll(async () => (await page.goto(url), (await row.count()) > 0 ? await row.first().getAttribute('data-status') : null), {
        timeout: 15_000,
      })
      .toBe('200');
    expect(await row.count()).toBe(1);
    await expect.poll(() => session.runs(`transaction_paid ${id}`)).toBe(1);
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
    await page.context().close();
  }, 90_000);
});
