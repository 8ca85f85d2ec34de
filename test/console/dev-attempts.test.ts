import { beforeAll, describe, expect, it } from 'vitest';
import { useDevSession } from './dev-session.js';
import { seriousA11yViolations, useBrowser, watchedPage } from '../helpers/browser.js';

// Issue 31 §3: one row per event, its attempts folded inside, the gateway's (fault attempts included) joined
// to the receiver's entries, in a real `pixhook dev` driven by Chromium.
const browser = useBrowser();
const session = useDevSession('pixhook-dev-attempts-');
const runs = session.runs;
let url: string;

beforeAll(() => {
  url = session.url();
});

describe('pixhook dev: an event and its attempts', () => {
  it('an injected 500 shows as the gateway attempt 1 beside attempt 2, which reached the receiver', async () => {
    const { page, watch } = await watchedPage(browser());
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(url);
    await page.getByLabel('Amount (cents)').first().fill('1990');
    await page.getByRole('button', { name: 'Create charge' }).click();
    const charge = page.locator('article.charge').first();
    await charge.waitFor();
    const id = (await charge.getAttribute('data-charge-id'))!;
    // The fault after the charge's own created event went out: the next delivery, the payment's, answers 500 once.
    await expect.poll(() => runs(`transaction_created ${id}`), { timeout: 15_000 }).toBe(1);
    await page.getByLabel('Fault', { exact: true }).selectOption('fail');
    await page.getByLabel('Attempts hit (empty: until cleared)').fill('1');
    await page.getByRole('button', { name: 'Inject fault' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('for 1 attempt');
    await page.locator('article.charge').first().getByRole('button', { name: 'Pay' }).click();
    await expect.poll(() => runs(`transaction_paid ${id}`), { timeout: 15_000 }).toBe(1);

    await page.goto(`${url}deliveries?resource=${encodeURIComponent(id)}&event=transaction_paid`);
    const rows = page.locator('table.deliveries tr[data-delivery-id]');
    expect(await rows.count()).toBe(1);
    const row = rows.first();
    expect(await row.getAttribute('data-status')).toBe('200');
    const details = row.locator('details.attempts');
    expect(await details.locator('summary').innerText()).toBe('1 delivery, 2 gateway attempts');
    await details.locator('summary').click();
    const first = details.locator('li[data-gateway-attempt="1"]');
    const second = details.locator('li[data-gateway-attempt="2"]');
    expect(await first.innerText()).toMatch(/attempt 1: 500 \(fault: fail, never reached the receiver\)/);
    expect(await first.getByRole('link').count()).toBe(0);
    expect(await second.innerText()).toMatch(/attempt 2: 200/);
    // The gateway's delivery id is the emulator's, the same on both attempts; attempt 2 links the receiver's entry.
    const gatewayId = await first.getAttribute('data-gateway-delivery');
    expect(gatewayId).toMatch(/\S/);
    expect(await second.getAttribute('data-gateway-delivery')).toBe(gatewayId);
    const entryId = await row.getAttribute('data-delivery-id');
    expect(await second.getByRole('link', { name: 'receiver entry' }).getAttribute('href')).toContain(`/deliveries/${entryId}`);
    expect(await details.locator('ol.received li').innerText()).toMatch(/answered 200\s+handled · [\d.]+ ms/);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    await page.context().close();
  }, 60_000);
});
