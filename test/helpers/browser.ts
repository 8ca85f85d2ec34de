import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** What a page did that it must not: dialogs, console errors, uncaught errors, CSP violations. */
export interface PageWatch {
  dialogs: string[];
  consoleErrors: string[];
  pageErrors: string[];
  cspViolations(): Promise<string[]>;
}

/** Debian's chromium (apt-get install chromium), launched once per test file; never a downloaded browser. */
export function useBrowser(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: process.env['PIXHOOK_CHROMIUM'] ?? '/usr/bin/chromium' });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser!;
}

/** A fresh page that records every dialog (dismissed, so it never hangs), console error, page error and CSP violation. */
export async function watchedPage(browser: Browser): Promise<{ page: Page; watch: PageWatch }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const watch = { dialogs: [] as string[], consoleErrors: [] as string[], pageErrors: [] as string[] };
  page.on('dialog', (dialog) => {
    watch.dialogs.push(dialog.message());
    void dialog.dismiss().catch(() => undefined);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') watch.consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => watch.pageErrors.push(error.message));
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __csp: string[] }).__csp = seen;
    document.addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
  return {
    page,
    watch: {
      ...watch,
      cspViolations: () => page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []),
    },
  };
}

/** axe-core's serious and critical violations on the page (injected with evaluate: the CSP refuses script tags). */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(context: Document, options: object): Promise<{ violations: { id: string; impact: string | null; nodes: unknown[] }[] }>;
        };
      }
    ).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}, ${v.nodes.length} nodes)`);
}

/** Milliseconds from navigation start to the first contentful paint (or DOMContentLoaded when none was recorded). */
export async function timeToFirstRender(page: Page): Promise<number> {
  return page.evaluate(() => {
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    if (paint) return Math.round(paint.startTime);
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
    return Math.round(nav?.domContentLoadedEventEnd ?? -1);
  });
}
