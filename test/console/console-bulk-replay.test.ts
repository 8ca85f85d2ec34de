import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConsole } from '../../src/console/index.js';
import { createReceiver, memoryJournal } from '../../src/index.js';
import { buildPayload } from '../../src/testing/index.js';
import { seriousA11yViolations, useBrowser, watchedPage } from '../helpers/browser.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import { startConsoleApp } from './console-fixture.js';

// Issue 31: bulk replay with filters and a dry run, through dedupe (a handled event stays `duplicate`).
const token = 'bulk-replay-console-token-0123456789';
const secret = 'whsec_bulk_replay';

async function jsonSetup() {
  const journal = memoryJournal();
  const receiver = createReceiver({ secret, journal });
  const runs = new Map<string, number>();
  let failing = true;
  receiver.on('transaction_paid', (event) => {
    if (event.transaction.id.startsWith('txn_fails') && failing) throw new Error('the ledger is down');
    runs.set(event.transaction.id, (runs.get(event.transaction.id) ?? 0) + 1);
  });
  const app = createConsole({ journal, receiver, token });
  const deliver = async (id: string) => {
    const body = bytesOf(buildPayload('transaction_paid', { id, amountInCents: 100 }));
    await receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body });
    await receiver.drain();
  };
  const replay = async (fields: Record<string, string>) => {
    const response = await app.fetch(
      new Request('http://127.0.0.1/actions/replays', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      }),
    );
    return { status: response.status, ...((await response.json()) as { ok: boolean; message: string; data?: Record<string, unknown> }) };
  };
  return { journal, runs, deliver, replay, stopFailing: () => void (failing = false) };
}

describe('bulk replay (JSON)', () => {
  it('counts on a dry run, then replays: handled ones come back duplicate, failed ones run', async () => {
    const { runs, deliver, replay, stopFailing } = await jsonSetup();
    const start = new Date(Date.now() - 1000).toISOString();
    await deliver('txn_ok_1');
    await deliver('txn_ok_2');
    await deliver('txn_fails_1');
    const dry = await replay({ since: start });
    // The two handled ones would come back duplicate: a dry run does not count them.
    expect(dry).toMatchObject({ ok: true, data: { dryRun: true, matched: 1, duplicates: 2, skipped: 0, outcomes: {} } });
    expect(dry.message).toContain('1 delivery would be replayed (2 already handled');
    expect(await replay({ since: start, answer: '500' })).toMatchObject({ data: { matched: 1 } });
    expect(await replay({ since: start, until: start })).toMatchObject({ data: { matched: 0 } });

    stopFailing();
    const run = await replay({ since: start, mode: 'run' });
    expect(run.data).toMatchObject({ dryRun: false, matched: 3, outcomes: { duplicate: 2, handled: 1 }, failed: 0 });
    expect(Object.fromEntries(runs)).toEqual({ txn_ok_1: 1, txn_ok_2: 1, txn_fails_1: 1 });
    // The replays themselves are not replayed again.
    expect(await replay({ since: start })).toMatchObject({ data: { matched: 0, duplicates: 3, skipped: 3 } });
  });

  it('refuses a bad time or answer with the reason', async () => {
    const { replay } = await jsonSetup();
    expect(await replay({ since: 'yesterday' })).toMatchObject({ status: 422, ok: false });
    expect((await replay({ answer: 'five hundred' })).message).toContain('answer');
  });
});

const browser = useBrowser();
let app: Awaited<ReturnType<typeof startConsoleApp>>;
beforeAll(async () => {
  app = await startConsoleApp();
});
afterAll(() => app?.close());

describe('bulk replay in the browser', () => {
  it('a dry run, then the run: counts right, the handled ones duplicate', async () => {
    for (const id of ['txn_bulk_1', 'txn_bulk_2', 'txn_bulk_3']) await app.deliver('transaction_paid', { id, amountInCents: 700 });
    const { page, watch } = await watchedPage(browser());
    await page.goto(`${app.base}/deliveries`);
    await page.getByText('Bulk replay').click();
    await page.getByLabel('Event', { exact: true }).last().fill('transaction_paid');
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Dry run' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Dry run: 0 deliveries would be replayed (3 already handled');
    expect((await app.journal.list({ limit: 1000 })).filter((e) => e.replayOf !== undefined)).toEqual([]);

    await page.getByText('Bulk replay').click();
    await page.getByLabel('Event', { exact: true }).last().fill('transaction_paid');
    await page.getByRole('button', { name: 'Replay them' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Replayed 3: 3 duplicate; 0 failed');
    for (const id of ['txn_bulk_1', 'txn_bulk_2', 'txn_bulk_3']) expect(app.runs.get(`transaction_paid:${id}`)).toBe(1);
    expect(await page.locator('tr[data-state="duplicate"]').count()).toBeGreaterThanOrEqual(3);
    expect(watch.consoleErrors).toEqual([]);
    await page.context().close();
  });
});
