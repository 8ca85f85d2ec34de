import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousA11yViolations, useBrowser, watchedPage } from '../helpers/browser.js';
import { startConsoleApp } from './console-fixture.js';

// Issue 28 §5: the held page's forms take a note and a name, and a Closed view shows who decided, why and when.
const browser = useBrowser();
let app: Awaited<ReturnType<typeof startConsoleApp>>;

beforeAll(async () => {
  app = await startConsoleApp();
});
afterAll(async () => {
  await app?.close();
});

describe('the held page trail', () => {
  it('Release and Dismiss pass note and by on; the Closed view and the resource timeline show them', async () => {
    await app.book.expect({ id: 'txn_trail_01', amountInCents: 1000 });
    await app.book.expect({ id: 'txn_trail_02', amountInCents: 1000 });
    expect((await app.deliver('transaction_paid', { id: 'txn_trail_01', amountInCents: 900 })).entry.reason).toBe('held');
    expect((await app.deliver('transaction_paid', { id: 'txn_trail_02', amountInCents: 1 })).entry.reason).toBe('held');
    const { page, watch } = await watchedPage(browser());
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.base}/held`);
    expect(await seriousA11yViolations(page)).toEqual([]);

    const first = page.locator('tr[data-held-id]', { hasText: 'txn_trail_01' });
    await first.locator('form[action$="/release"]').getByLabel('Note').fill('customer paid the rest by TED');
    await first.locator('form[action$="/release"]').getByLabel('By').fill('ana');
    await first.getByRole('button', { name: 'Release' }).click();
    await page.waitForURL(/\/resources\/txn_trail_01/);
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Released');
    expect(await page.locator('tr[data-outcome="released"]').innerText()).toContain('released by ana: customer paid the rest by TED');

    await page.goto(`${app.base}/held`);
    const second = page.locator('tr[data-held-id]', { hasText: 'txn_trail_02' });
    await second.locator('form[action$="/dismiss"]').getByLabel('Note').fill('refunded <by hand>');
    await second.locator('form[action$="/dismiss"]').getByLabel('By').fill('bruno');
    await second.getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Dismissed');
    expect(app.runs.get('transaction_paid:txn_trail_02')).toBeUndefined();

    // The open view has neither any more; the Closed view lists both, with who, why and when.
    await page.goto(`${app.base}/held`);
    expect(await page.locator('tr[data-held-id]', { hasText: 'txn_trail_0' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Closed' }).click();
    await page.waitForURL(/state=closed/);
    const released = page.locator('tr[data-held-id]', { hasText: 'txn_trail_01' });
    expect(await released.getAttribute('data-state')).toBe('released');
    const releasedCells = await released.locator('td').allInnerTexts();
    expect(releasedCells.slice(4, 7)).toEqual(['released', 'ana', 'customer paid the rest by TED']);
    expect(releasedCells[0]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
    const dismissed = page.locator('tr[data-held-id]', { hasText: 'txn_trail_02' });
    expect((await dismissed.locator('td').allInnerTexts()).slice(4, 7)).toEqual(['dismissed', 'bruno', 'refunded <by hand>']);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 800 });
    expect(await seriousA11yViolations(page)).toEqual([]);

    // The JSON API gives the same closed list.
    const closed = (await (await page.request.get(`${app.base}/api/held?state=closed`)).json()) as {
      heldId: string;
      by?: string;
      note?: string;
    }[];
    expect(closed.map((h) => [h.by, h.note]).sort()).toEqual([
      ['ana', 'customer paid the rest by TED'],
      ['bruno', 'refunded <by hand>'],
    ]);
    expect(watch.consoleErrors).toEqual([]);
    await page.context().close();
  }, 60_000);

  // Issue 36 §3: a wrong amount held, then refunded. Release is refused and the page says why; Dismiss still closes it.
  it('Release of a payment refunded since it was held says refunded_since_held and why; Dismiss still closes it', async () => {
    await app.book.expect({ id: 'txn_trail_03', amountInCents: 1000 });
    expect((await app.deliver('transaction_paid', { id: 'txn_trail_03', amountInCents: 900 })).entry.reason).toBe('held');
    expect((await app.deliver('transaction_refunded', { id: 'txn_trail_03', amountInCents: 900 })).entry.reason).toBeUndefined();
    const { page, watch } = await watchedPage(browser());
    await page.goto(`${app.base}/held`);
    const row = page.locator('tr[data-held-id]', { hasText: 'txn_trail_03' });
    await row.getByRole('button', { name: 'Release' }).click();
    await page.waitForURL(/\/resources\/txn_trail_03/);
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Not released (refunded_since_held)');
    expect(await page.getByRole('status').innerText()).toContain('the money is gone');
    expect(app.runs.get('transaction_paid:txn_trail_03')).toBeUndefined();
    expect(app.runs.get('transaction_refunded:txn_trail_03')).toBe(1);

    await page.goto(`${app.base}/held`);
    await row.locator('form[action$="/dismiss"]').getByLabel('Note').fill('the money went back');
    await row.getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Dismissed');
    expect((await app.book.held()).filter((held) => held.resourceId === 'txn_trail_03')).toEqual([]);
    expect(app.runs.get('transaction_paid:txn_trail_03')).toBeUndefined();
    expect(watch.consoleErrors).toEqual([]);
    await page.context().close();
  }, 60_000);
});
