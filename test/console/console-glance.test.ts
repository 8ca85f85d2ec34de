import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBrowser } from '../helpers/browser.js';
import { startConsoleApp } from './console-fixture.js';

// Issue 31: held, duplicate and handled all showed the same green 200; "Stat/e" and "transaction_/paid"
// broke mid-word at 1280 px; the tables were unusable at 390 px; the 404 page had no layout.
const browser = useBrowser();
let app: Awaited<ReturnType<typeof startConsoleApp>>;

beforeAll(async () => {
  app = await startConsoleApp();
  await app.deliver('transaction_paid', { id: 'txn_glance_handled', amountInCents: 1000 });
  // One row per event: the duplicate's row is its event's newest delivery (the handled one folds inside it).
  await app.deliver('transaction_paid', { id: 'txn_glance_dup', amountInCents: 1000 });
  await app.deliver('transaction_paid', { id: 'txn_glance_dup', amountInCents: 1000 });
  await app.book.expect({ id: 'txn_glance_held', amountInCents: 1000 });
  await app.deliver('transaction_paid', { id: 'txn_glance_held', amountInCents: 1 });
  await fetch(`${app.origin}/webhook`, { method: 'POST', body: '{}', headers: { 'x-signature': `sha256=${'0'.repeat(64)}` } });
  for (let tries = 0; (await app.journal.list({ status: 401 })).length === 0 && tries < 100; tries++)
    await new Promise((resolve) => setTimeout(resolve, 10));
}, 60_000);
afterAll(() => app?.close());

describe('the deliveries table at a glance', () => {
  it('shows a pill per state, each its own colour', async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${app.base}/deliveries`);
    const pills = await page
      .locator('tbody .pill')
      .evaluateAll((nodes) => nodes.map((n) => [n.textContent, getComputedStyle(n).backgroundColor, n.closest('tr')?.dataset['state']]));
    const colours = new Map(pills.map(([text, colour]) => [text, colour]));
    expect([...colours.keys()].sort()).toEqual(['duplicate', 'forged', 'handled', 'held']);
    expect(new Set(colours.values()).size).toBe(4);
    expect(pills.every(([text, , state]) => text === state)).toBe(true);
    await context.close();
  });

  it('breaks no header or event name mid-word at 1280 px', async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${app.base}/deliveries`);
    const broken = await page.evaluate(() => {
      // Lines each text node of the cell takes (a pill's own box is not a line).
      const lines = (node: Element) => {
        let most = 0;
        const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
        for (let text = walker.nextNode(); text !== null; text = walker.nextNode()) {
          if (text.textContent!.trim() === '') continue;
          const range = document.createRange();
          range.selectNodeContents(text);
          most = Math.max(most, new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size);
        }
        return most;
      };
      return Array.from(document.querySelectorAll('table.deliveries th, table.deliveries td'))
        .filter((cell) => !cell.textContent!.trim().includes(' ') && lines(cell) > 1)
        .map((cell) => cell.textContent!.trim());
    });
    expect(broken).toEqual([]);
    await context.close();
  });

  it('fits a 390 px phone: no sideways scrolling, every cell labelled', async () => {
    const context = await browser().newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${app.base}/deliveries`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const labels = await page
      .locator('table.deliveries tr[data-delivery-id]')
      .first()
      .locator('td')
      .evaluateAll((cells) => cells.map((c) => c.getAttribute('data-label')));
    expect(labels).toContain('State');
    expect(labels.every((label) => label !== null && label !== '')).toBe(true);
    await context.close();
  });

  it('answers an unknown page with a 404 inside the layout', async () => {
    const response = await fetch(`${app.base}/no-such-page`);
    expect(response.status).toBe(404);
    const text = await response.text();
    expect(text).toContain('aria-label="Sections"');
    expect(text).toContain('/assets/console.css');
  });
});
