import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousA11yViolations, useBrowser } from '../helpers/browser.js';
import { buildPayload } from '../../src/testing/index.js';
import { startConsoleApp } from './console-fixture.js';

// Issue 31: axe found `scrollable-region-focusable` (serious) on the delivery page's <pre> blocks.
// Every page, at a desktop and a phone width, with content wide enough to scroll.
const browser = useBrowser();
let app: Awaited<ReturnType<typeof startConsoleApp>>;
const paths: string[] = [];

beforeAll(async () => {
  app = await startConsoleApp();
  const long = 'Maria da Conceição Albuquerque de Souza e Silva Pereira Bragança Orleans'.repeat(2);
  const { entry } = await app.deliver('transaction_paid', {
    id: 'txn_axe_0000000000000000000000000001',
    amountInCents: 123456,
    customer: { name: long, email: 'maria.da.conceicao.albuquerque@example.com', document: '52998224725' },
  });
  await app.book.expect({ id: 'txn_axe_held', amountInCents: 1000 });
  await app.deliver('transaction_paid', { id: 'txn_axe_held', amountInCents: 900 });
  await fetch(`${app.origin}/webhook`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  await app.quarantine.put({
    reason: 'payload_invalid',
    message: 'data.amountInCents: expected a number',
    bytes: new TextEncoder().encode(JSON.stringify(buildPayload('transaction_paid', { id: 'txn_axe_q', amountInCents: 1 }))),
    headers: {},
    receivedAt: new Date().toISOString(),
  });
  paths.push(
    '/deliveries',
    `/deliveries/${encodeURIComponent(entry.id)}`,
    '/resources/txn_axe_held',
    '/held',
    '/quarantine',
    '/no-such-page',
  );
}, 60_000);
afterAll(() => app?.close());

describe('axe on every console page', () => {
  it.each([
    [1280, 'light'],
    [390, 'light'],
    [1280, 'dark'],
    [390, 'dark'],
  ] as const)(
    'finds no serious or critical violation at %i px, %s',
    async (width, colorScheme) => {
      const context = await browser().newContext({ viewport: { width, height: 900 }, colorScheme });
      const page = await context.newPage();
      const found: Record<string, string[]> = {};
      for (const path of paths) {
        await page.goto(`${app.base}${path}`);
        const violations = await seriousA11yViolations(page);
        if (violations.length > 0) found[path] = violations;
      }
      expect(found).toEqual({});
      await context.close();
    },
    60_000,
  );
});
