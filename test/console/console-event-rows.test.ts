import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousA11yViolations, useBrowser, watchedPage } from '../helpers/browser.js';
import { startConsoleApp } from './console-fixture.js';

// Issue 31 §3: one row per event on the deliveries page, its deliveries folded inside; live ones join their row.
const browser = useBrowser();
let app: Awaited<ReturnType<typeof startConsoleApp>>;

beforeAll(async () => {
  app = await startConsoleApp();
});
afterAll(async () => {
  await app?.close();
});

describe('the deliveries page: one row per event', () => {
  it('folds the deliveries of one event into its row, and a live delivery of it takes that row', async () => {
    const first = await app.deliver('transaction_paid', { id: 'txn_rows_1', amountInCents: 500 });
    const second = await app.deliver('transaction_paid', { id: 'txn_rows_1', amountInCents: 500 });
    await app.deliver('transaction_paid', { id: 'txn_rows_2', amountInCents: 700 });
    expect([first.entry.reason, second.entry.reason]).toEqual([undefined, 'duplicate']);

    const { page, watch } = await watchedPage(browser());
    await page.goto(`${app.base}/deliveries?event=transaction_paid`);
    const row = page.locator('tr[data-delivery-id]', { hasText: 'txn_rows_1' });
    expect(await row.count()).toBe(1);
    // The row is the event's newest delivery; both are inside, oldest first, each with its answer and latency.
    expect(await row.getAttribute('data-delivery-id')).toBe(second.entry.id);
    const details = row.locator('details.attempts');
    expect(await details.locator('summary').innerText()).toBe('2 deliveries');
    await details.locator('summary').click();
    const items = details.locator('ol.received li');
    expect(await items.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-entry-id')))).toEqual([
      first.entry.id,
      second.entry.id,
    ]);
    expect(await items.nth(0).innerText()).toMatch(/answered 200\s+handled · [\d.]+ ms/);
    expect(await items.nth(1).innerText()).toMatch(/answered 200\s+duplicate/);
    expect(await page.locator('tr[data-delivery-id]', { hasText: 'txn_rows_2' }).locator('summary').innerText()).toBe('1 delivery');
    expect(await seriousA11yViolations(page)).toEqual([]);

    // A third delivery of the same event arrives live: it replaces the event's row (on top), counting 3.
    const third = await app.deliver('transaction_paid', { id: 'txn_rows_1', amountInCents: 500 });
    await expect.poll(() => page.locator(`tr[data-delivery-id="${third.entry.id}"]`).count(), { timeout: 10_000 }).toBe(1);
    expect(await page.locator('tr[data-delivery-id]', { hasText: 'txn_rows_1' }).count()).toBe(1);
    const live = page.locator(`tr[data-delivery-id="${third.entry.id}"]`);
    expect(await live.getAttribute('data-count')).toBe('3');
    expect(await live.locator('td[data-label="Attempts"]').innerText()).toBe('3 deliveries');

    // The JSON API keeps its shape: one item per delivery.
    const api = (await (await page.request.get(`${app.base}/api/deliveries?resource=txn_rows_1`)).json()) as { id: string }[];
    expect(api.map((e) => e.id).sort()).toEqual([first.entry.id, second.entry.id, third.entry.id].sort());
    expect(watch.consoleErrors).toEqual([]);
    await page.context().close();
  }, 60_000);
});
