import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createConsole, createWatchdog } from '../../src/console/index.js';
import { memoryJournal } from '../../src/index.js';
import { seriousA11yViolations, useBrowser, watchedPage } from '../helpers/browser.js';
import { entry } from '../journal/journal-entries.js';

// Issue 31: a silent period raises the watchdog's banner on every console page.
const browser = useBrowser();
let server: Server | undefined;
afterAll(
  () =>
    new Promise<void>((resolve) => {
      server?.closeAllConnections();
      if (server) server.close(() => resolve());
      else resolve();
    }),
);

describe("the watchdog's banner", () => {
  it('shows once the webhooks went silent, and goes when a genuine delivery arrives', async () => {
    const journal = memoryJournal();
    let now = Date.now();
    await journal.add(entry({ at: new Date(now).toISOString() }));
    const watchdog = createWatchdog({ journal, now: () => now, silentAfterMinutes: 15 });
    const app = createConsole({ journal, watchdog });
    server = createServer((req, res) => app.node(req, res));
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const { page, watch } = await watchedPage(browser());
    await page.goto(`${base}/deliveries`);
    expect(await page.locator('[data-alert]').count()).toBe(0);

    now += 16 * 60_000;
    await watchdog.check();
    await page.goto(`${base}/deliveries`);
    const banner = page.getByRole('alert', { name: 'Watchdog alerts' });
    expect(await banner.innerText()).toContain('No genuine delivery for 16 minutes');
    expect(await page.locator('[data-alert="silent"]').count()).toBe(1);
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(await (await fetch(`${base}/api/watchdog`)).json()).toMatchObject([{ kind: 'silent' }]);

    await journal.add(entry({ at: new Date(now).toISOString() }));
    await watchdog.check();
    await page.goto(`${base}/deliveries?event=transaction_paid`);
    expect(await page.locator('[data-alert]').count()).toBe(0);
    expect(watch.consoleErrors).toEqual([]);
    watchdog.close();
    await page.context().close();
  });
});
