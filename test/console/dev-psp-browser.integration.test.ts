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
    await charge.getByRole('button', { name: 'Pay', exact: true }).click();
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

  it("the PSP's faults from the page: a wrong amount held; its webhook twice and a late pending run the handler once; a failed confirmation read answered 503, then read on the retry; its refund and dispute where it has them; axe clean", async () => {
    const session = sessions.get(psp)!;
    const url = session.url();
    const { page, watch } = await watchedPage(browser());
    await page.goto(url);
    /** Creates a charge from the form; its id from the page the action returns to. */
    const create = async () => {
      await page.getByLabel('Amount (cents)').first().fill('1990');
      await page.getByRole('button', { name: 'Create charge' }).click();
      await page.waitForURL(/notice=/);
      const id = /charge (\S+) \(expected in the book\)/.exec(await page.locator('p.notice').innerText())![1]!;
      return { id, card: page.locator(`article.charge[data-charge-id="${id}"]`) };
    };
    /** The emulator's deliveries of a charge once `count` of them are delivered: "<event> <attempts>". */
    const sent = async (id: string, count: number) => {
      const rows = page.locator('table.gateway tr[data-gateway-delivery]').filter({ hasText: id });
      await expect
        .poll(async () => (await page.goto(url), await rows.and(page.locator('[data-state="delivered"]')).count()), { timeout: 30_000 })
        .toBe(count);
      return (
        await rows.evaluateAll((trs) =>
          trs.map((tr) => `${tr.children[1]!.textContent!.trim()} ${tr.children[4]!.textContent!.trim().replace(/\s+/g, ' ')}`),
        )
      ).sort();
    };

    const wrong = await create();
    await wrong.card.getByLabel('Other amount (cents)').fill('1000');
    await wrong.card.getByRole('button', { name: 'Pay', exact: true }).click();
    expect(await sent(wrong.id, 1)).toEqual(['paid #1 200']);
    expect(session.runs(`transaction_paid ${wrong.id}`)).toBe(0); // 1000 of 1990: held by the book

    const twice = await create();
    await twice.card.getByRole('button', { name: 'Pay, webhook sent twice' }).click();
    expect(await sent(twice.id, 2)).toEqual(['duplicate #1 200', 'paid #1 200']);
    await expect.poll(() => session.runs(`transaction_paid ${twice.id}`)).toBe(1);

    const late = await create();
    await late.card.getByRole('button', { name: 'Pay, then a late pending' }).click();
    expect(await sent(late.id, 2)).toEqual(['late-pending #1 200', 'paid #1 200']);
    await expect.poll(() => session.runs(`transaction_paid ${late.id}`)).toBe(1);
    expect(session.runs(`transaction_pending ${late.id}`)).toBe(0);

    const failing = await create();
    const failButton = failing.card.getByRole('button', { name: 'Pay, its confirmation read failing once' });
    // Only where the webhook is a hint the receiver confirms (Mercado Pago, Pagar.me, Asaas with its API key).
    expect(await failButton.count()).toBe(psp === 'pagbank' || psp === 'woovi' ? 0 : 1);
    if (psp !== 'pagbank' && psp !== 'woovi') {
      await failButton.click();
      expect(await sent(failing.id, 1)).toEqual(['paid #1 503 #2 200']);
      await expect.poll(() => session.runs(`transaction_paid ${failing.id}`)).toBe(1);
    }

    // Refund and Dispute: the PSP's own webhook where it has the fact (and the profile plays it), read as the union's event.
    const facts = {
      'mercado-pago': { Refund: 'transaction_refunded', Dispute: 'transaction_refunded' },
      asaas: { Refund: 'transaction_refunded', Dispute: 'transaction_infraction' },
      pagbank: { Refund: 'transaction_refunded' },
      woovi: { Refund: 'transaction_refunded', Dispute: 'transaction_infraction' },
      pagarme: { Refund: 'transaction_refunded', Dispute: 'transaction_refunded' },
    }[psp] as Partial<Record<'Refund' | 'Dispute', string>>;
    for (const button of ['Refund', 'Dispute'] as const) {
      const after = await create();
      await after.card.getByRole('button', { name: 'Pay', exact: true }).click();
      expect(await sent(after.id, 1)).toEqual(['paid #1 200']);
      await page.locator(`article.charge[data-charge-id="${after.id}"]`).getByRole('button', { name: button, exact: true }).click();
      await page.waitForURL(/notice=/);
      const event = facts[button];
      if (event === undefined) {
        expect(await page.locator('p.notice').innerText()).toContain('does not play this');
        continue;
      }
      expect((await sent(after.id, 2)).map((line) => line.split(' ')[0])).toEqual(
        ['paid', button === 'Refund' ? 'refund' : 'dispute'].sort(),
      );
      await expect.poll(() => session.runs(`${event} ${after.id}`)).toBe(1);
      expect(session.runs(`transaction_paid ${after.id}`)).toBe(1);
    }
    expect(await seriousA11yViolations(page)).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
    await page.context().close();
  }, 180_000);
});
