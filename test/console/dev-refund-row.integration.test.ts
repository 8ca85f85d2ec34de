import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-process.js';
import { seriousA11yViolations, useBrowser, watchedPage } from '../helpers/browser.js';
import { useDevSession } from './dev-session.js';

// Issue 37: "A refund never gets its own console row." The API Pix call that notifies a refund carries its Pix
// again (a duplicate of the payment) and the refund; the journal's entry took the Pix's key, so the deliveries
// page folded the refund into the payment's row. Now the refund is a row of its own, in Chromium, live and on reload.
const browser = useBrowser();
const session = useDevSession('pixhook-dev-refund-row-', ['--profile', 'api-pix']);
let url: string;

beforeAll(() => {
  url = session.url();
});

describe('pixhook dev --profile api-pix: the deliveries page', () => {
  it('a refund has its own row, pix_refund_updated, beside its payment’s pix_received row', async () => {
    const { page, watch } = await watchedPage(browser());
    await page.goto(`${url}deliveries`);
    const played = await runCli(['trigger', 'api-pix-refund', '--dev', url]);
    expect(played.code).toBe(0);
    const txid = /Created cob (\w+)/.exec(played.stdout)![1]!;
    const rows = page.locator('tr[data-delivery-id]', { hasText: txid });
    // Live: the rows arrive over server-sent events.
    await expect.poll(() => rows.count()).toBe(2);
    const eventsOf = () => rows.evaluateAll((nodes) => nodes.map((n) => n.querySelector('td[data-label="Event"]')?.textContent?.trim()));
    expect((await eventsOf()).sort()).toEqual(['pix_received', 'pix_refund_updated']);
    // And as the server renders them.
    await page.reload();
    await expect.poll(() => rows.count()).toBe(2);
    expect((await eventsOf()).sort()).toEqual(['pix_received', 'pix_refund_updated']);
    const refundRow = page.locator('tr[data-delivery-id]', { hasText: 'pix_refund_updated' }).filter({ hasText: txid });
    expect(await refundRow.getAttribute('data-key')).toMatch(/^pix_refund_updated:/);
    expect(await refundRow.locator('details.attempts summary').innerText()).toBe('1 delivery');
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
  }, 60_000);
});
