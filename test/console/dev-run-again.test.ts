import { beforeAll, describe, expect, it } from 'vitest';
import { useDevSession } from './dev-session.js';
import { seriousA11yViolations, useBrowser, watchedPage } from '../helpers/browser.js';
import { startConsoleApp } from './console-fixture.js';

// Issue 31 §2: in `pixhook dev` only, "Run again" re-runs a handled delivery's handlers outside dedupe,
// marked in the journal; a console beside a real receiver has no such action.
const browser = useBrowser();
const session = useDevSession('pixhook-dev-rerun-');
const runs = session.runs;
let url: string;

beforeAll(() => {
  url = session.url();
});

describe('Run again', () => {
  it('in pixhook dev: runs a handled delivery’s handlers once more, marked rerun in the journal; dedupe still holds', async () => {
    const { page, watch } = await watchedPage(browser());
    await page.goto(url);
    await page.getByLabel('Amount (cents)').first().fill('3100');
    await page.getByRole('button', { name: 'Create charge' }).click();
    const charge = page.locator('article.charge').first();
    await charge.waitFor();
    const id = (await charge.getAttribute('data-charge-id'))!;
    await charge.getByRole('button', { name: 'Pay' }).click();
    await expect.poll(() => runs(`transaction_paid ${id}`), { timeout: 15_000 }).toBe(1);

    const list = async () =>
      (await (await page.request.get(`${url}api/deliveries?resource=${encodeURIComponent(id)}&event=transaction_paid`)).json()) as {
        id: string;
        status: number;
        reason?: string;
        replayOf?: string;
        rerun?: boolean;
        attempts: { outcome: string }[];
      }[];
    await expect.poll(async () => (await list()).length, { timeout: 10_000 }).toBe(1);
    const [original] = await list();
    await page.goto(`${url}deliveries/${encodeURIComponent(original!.id)}`);
    expect(await seriousA11yViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Run again' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('Ran again');
    expect(runs(`transaction_paid ${id}`)).toBe(2);
    const rerun = (await list()).find((e) => e.rerun === true);
    expect(rerun).toMatchObject({ status: 200, replayOf: original!.id, rerun: true, attempts: [{ outcome: 'ok' }] });
    expect(page.url()).toContain(`/deliveries/${rerun!.id}`);
    // A rerun is not rerun again, and it left the receiver's dedupe as it was: a Replay is a duplicate.
    expect(await page.getByRole('button', { name: 'Run again' }).count()).toBe(0);
    await page.goto(`${url}deliveries/${encodeURIComponent(original!.id)}`);
    await page.getByRole('button', { name: 'Replay' }).click();
    await expect.poll(() => page.getByRole('status').innerText()).toContain('duplicate');
    expect(runs(`transaction_paid ${id}`)).toBe(2);
    expect(watch.consoleErrors).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('is refused beside a real receiver: no button, and the POST runs nothing', async () => {
    const token = 'rerun-test-token-0123456789';
    const app = await startConsoleApp({ token });
    try {
      const { entry } = await app.deliver('transaction_paid', { id: 'txn_rerun_real', amountInCents: 800 });
      const { page } = await watchedPage(browser());
      await page.goto(`${app.base}/deliveries/${encodeURIComponent(entry.id)}?token=${token}`);
      expect(await page.getByRole('button', { name: 'Replay' }).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Run again' }).count()).toBe(0);
      const answer = await page.request.post(`${app.base}/actions/deliveries/${encodeURIComponent(entry.id)}/rerun`, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        failOnStatusCode: false,
      });
      expect(answer.status()).toBe(422);
      expect(((await answer.json()) as { message: string }).message).toContain('No such action here');
      expect(app.runs.get('transaction_paid:txn_rerun_real')).toBe(1);
      expect((await app.journal.list({ resource: 'txn_rerun_real' })).some((e) => e.rerun === true)).toBe(false);
      await page.context().close();
    } finally {
      await app.close();
    }
  }, 60_000);
});
