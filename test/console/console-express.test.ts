import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousA11yViolations, timeToFirstRender, useBrowser, watchedPage } from '../helpers/browser.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { buildPayload } from '../../src/testing/index.js';
import { startConsoleApp } from './console-fixture.js';

// Issue 23: the console mounted at /console in a real Express app, driven by Debian's Chromium.
const browser = useBrowser();
const tempDir = useTempDirs('pixhook-console-');
let app: Awaited<ReturnType<typeof startConsoleApp>>;
let shots: string;
const firstRender: Record<string, number> = {};

beforeAll(async () => {
  app = await startConsoleApp();
  shots = process.env['PIXHOOK_SCREENSHOTS'] ?? tempDir();
});
afterAll(async () => {
  await app?.close();
  if (shots !== undefined) writeFileSync(join(shots, 'first-render-express.json'), JSON.stringify(firstRender, undefined, 2));
});

const hostile = {
  id: 'txn_"><img src=x onerror=window.__xss=1>',
  name: '<script>window.__xss=2</script>\u2028\u2029',
};

async function visit(path: string, name: string) {
  const { page, watch } = await watchedPage(browser());
  const response = await page.goto(`${app.base}${path}`);
  expect(response?.status()).toBe(200);
  firstRender[name] = await timeToFirstRender(page);
  await page.screenshot({ path: join(shots, `express-${name}.png`), fullPage: true });
  return { page, watch };
}

describe('the console mounted in Express', () => {
  it('shows a delivery row with data-delivery-id and data-status, and the delivery page masks the signature', async () => {
    const { entry } = await app.deliver('transaction_paid', { id: 'txn_row_test_0001', amountInCents: 1234 });
    const { page, watch } = await visit('/deliveries', 'deliveries');
    const row = page.locator(`tr[data-delivery-id="${entry.id}"]`);
    await expect.poll(() => row.getAttribute('data-status')).toBe('200');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await row.getByRole('link').first().click();
    await page.waitForURL(/\/deliveries\/.+/);
    const text = await page.locator('main').innerText();
    expect(text).toContain('transaction_paid');
    expect(text).not.toContain(entry.signature!.replace('…', '').padEnd(30, 'x'));
    expect(text).toMatch(/sha256=\w{0,4}…/);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.screenshot({ path: join(shots, 'express-delivery.png'), fullPage: true });
    expect(watch.consoleErrors).toEqual([]);
    expect(await watch.cspViolations()).toEqual([]);
    await page.context().close();
  });

  it('adds a new delivery live (server-sent events) without a reload, filtered like the page', async () => {
    const { page, watch } = await watchedPage(browser());
    await page.goto(`${app.base}/deliveries?event=transaction_refunded`);
    // The live stream is open once the page has loaded its script.
    await page.waitForLoadState('networkidle').catch(() => undefined);
    await app.deliver('transaction_paid', { id: 'txn_live_other', amountInCents: 500 });
    const { entry } = await app.deliver('transaction_refunded', { id: 'txn_live_0001', amountInCents: 500 });
    await expect.poll(() => page.locator(`tr[data-delivery-id="${entry.id}"]`).count(), { timeout: 10_000 }).toBe(1);
    expect(await page.locator('tbody tr', { hasText: 'txn_live_other' }).count()).toBe(0);
    expect(watch.consoleErrors).toEqual([]);
    await page.context().close();
  });

  it('a quarantined body: Replay runs the handler once, Replay again is a duplicate', async () => {
    const body = JSON.stringify(buildPayload('transaction_paid', { id: 'txn_quarantined_01', amountInCents: 2500 }));
    const id = await app.quarantine.put({
      reason: 'payload_invalid',
      message: 'data.amountInCents: expected a number (an older reader)',
      bytes: new TextEncoder().encode(body),
      headers: {},
      receivedAt: new Date().toISOString(),
    });
    const { page, watch } = await visit('/quarantine', 'quarantine');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.locator(`tr[data-quarantine-id="${id}"]`).getByRole('button', { name: 'Replay' }).click();
    await page.waitForURL(/\/deliveries\/.+/);
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Replayed: handled (200)');
    expect(await page.locator('main').innerText()).toContain(`quarantine:${id}`);
    expect(app.runs.get('transaction_paid:txn_quarantined_01')).toBe(1);

    // A successful Replay removes the body (issue 31); the same body quarantined again replays as a duplicate.
    expect(await page.getByRole('status').innerText()).toContain('Removed from the quarantine');
    expect(await app.quarantine.show(id)).toBeUndefined();
    await app.quarantine.put({
      reason: 'payload_invalid',
      message: 'data.amountInCents: expected a number (an older reader)',
      bytes: new TextEncoder().encode(body),
      headers: {},
      receivedAt: new Date().toISOString(),
    });
    await page.goto(`${app.base}/quarantine`);
    await page.locator(`tr[data-quarantine-id="${id}"]`).getByRole('button', { name: 'Replay' }).click();
    await page.waitForURL(/\/deliveries\/.+/);
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Replayed: duplicate');
    expect(app.runs.get('transaction_paid:txn_quarantined_01')).toBe(1);
    const replays = (await app.journal.list({ resource: 'txn_quarantined_01' })).map((e) => [e.replayOf, e.reason ?? 'handled']);
    expect(replays).toEqual([
      [`quarantine:${id}`, 'duplicate'],
      [`quarantine:${id}`, 'handled'],
    ]);
    expect(watch.consoleErrors).toEqual([]);
    await page.context().close();
  });

  it('a held amount mismatch: Release runs the handler once', async () => {
    await app.book.expect({ id: 'txn_held_amount_01', amountInCents: 1000 });
    const { answer, entry } = await app.deliver('transaction_paid', { id: 'txn_held_amount_01', amountInCents: 900 });
    expect([answer, entry.reason]).toEqual([200, 'held']);
    expect(app.runs.get('transaction_paid:txn_held_amount_01')).toBeUndefined();
    const { page, watch } = await visit('/held', 'held');
    expect(await seriousA11yViolations(page)).toEqual([]);
    const row = page.locator('tr[data-held-id]', { hasText: 'txn_held_amount_01' });
    expect(await row.innerText()).toContain('amount_mismatch');
    await row.getByRole('button', { name: 'Release' }).click();
    await page.waitForURL(/\/resources\/txn_held_amount_01/);
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Released');
    expect(app.runs.get('transaction_paid:txn_held_amount_01')).toBe(1);
    expect(await page.locator('tr[data-outcome="released"]').count()).toBe(1);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.screenshot({ path: join(shots, 'express-resource.png'), fullPage: true });
    firstRender['resource'] = await timeToFirstRender(page);

    // Dismiss closes another held event without running it.
    await app.deliver('transaction_paid', { id: 'txn_held_amount_02', amountInCents: 1 });
    await app.book.expect({ id: 'txn_held_amount_03', amountInCents: 1000 });
    await app.deliver('transaction_paid', { id: 'txn_held_amount_03', amountInCents: 1 });
    await page.goto(`${app.base}/held`);
    const other = page.locator('tr[data-held-id]', { hasText: 'txn_held_amount_03' });
    await other.locator('form[action$="/dismiss"]').getByLabel('Note').fill('refunded by hand');
    await other.getByRole('button', { name: 'Dismiss' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Dismissed');
    expect(app.runs.get('transaction_paid:txn_held_amount_03')).toBeUndefined();
    // The resource page shows the trail: what was dismissed, and why.
    await page.goto(`${app.base}/resources/txn_held_amount_03`);
    await expect.poll(() => page.locator('tr[data-outcome="dismissed"]').innerText()).toContain('dismissed: refunded by hand');
    expect(watch.consoleErrors).toEqual([]);
    await page.context().close();
  });

  it('renders hostile ids and names inert: no dialog, no script run, no console error, no CSP violation', async () => {
    await app.book.expect({ id: hostile.id, amountInCents: 1000 });
    await app.deliver('transaction_paid', {
      id: hostile.id,
      amountInCents: 999,
      customer: { name: hostile.name, email: 'x@example.com', document: '52998224725' },
    });
    const [entry] = await app.journal.list({ resource: hostile.id });
    await app.journal.add({ ...entry!, id: `${entry!.id}z`, event: hostile.name, reason: 'held', warnings: [hostile.name] });
    for (const [name, path] of [
      ['hostile-deliveries', '/deliveries'],
      ['hostile-delivery', `/deliveries/${encodeURIComponent(`${entry!.id}z`)}`],
      ['hostile-resource', `/resources/${encodeURIComponent(hostile.id)}`],
      ['hostile-held', '/held'],
    ] as const) {
      const { page, watch } = await visit(path, name);
      expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
      expect(await page.locator('main img').count()).toBe(0);
      expect(await page.locator('main script').count()).toBe(0);
      expect(await page.locator('main').innerText()).toContain('onerror=window.__xss=1');
      expect(watch.dialogs).toEqual([]);
      expect(watch.pageErrors).toEqual([]);
      expect(watch.consoleErrors).toEqual([]);
      expect(await watch.cspViolations()).toEqual([]);
      expect(await seriousA11yViolations(page)).toEqual([]);
      await page.context().close();
    }
  }, 90_000);

  it('refuses a POST without the CSRF token, and one from another origin', async () => {
    const [held] = await app.book.held();
    const { page } = await watchedPage(browser());
    await page.goto(`${app.base}/deliveries`);
    const noToken = await page.request.post(`${app.base}/actions/held/${encodeURIComponent(held!.heldId)}/dismiss`, {
      form: { note: 'forged' },
      headers: { origin: app.origin },
    });
    expect(noToken.status()).toBe(403);
    expect(await noToken.text()).toContain('CSRF');
    const csrf = await page.locator('meta[name="csrf-token"]').getAttribute('content');
    const crossSite = await page.request.post(`${app.base}/actions/held/${encodeURIComponent(held!.heldId)}/dismiss`, {
      form: { note: 'forged', _csrf: csrf! },
      headers: { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status()).toBe(403);
    expect((await app.book.held()).some((h) => h.heldId === held!.heldId)).toBe(true);
    await page.context().close();
  });

  it('answers loopback only without a token (a DNS-rebinding Host is refused) and serves /favicon.ico', async () => {
    // fetch() will not send another Host: node:http does, as a DNS-rebinding page would make the browser do.
    const rebound = await new Promise<number>((resolve, reject) => {
      const url = new URL(`${app.base}/deliveries`);
      request({ host: url.hostname, port: url.port, path: url.pathname, headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    expect(rebound).toBe(403);
    expect((await fetch(`${app.base}/favicon.ico`)).status).toBe(204);
    const json = await fetch(`${app.base}/api/deliveries?status=200&resource=txn_row_test_0001`);
    expect(json.headers.get('content-security-policy')).toContain("script-src 'self'");
    const rows = (await json.json()) as { resourceId: string; status: number }[];
    expect(rows.map((r) => [r.resourceId, r.status])).toEqual([['txn_row_test_0001', 200]]);
  });
});
