// Writes docs/sandbox.png, docs/deliveries.png (light, dark, phone, an event's attempts unfolded) and docs/bulk-replay.png from a real run: `pixhook dev` as a process, a
// charge created and paid, another paid with a fault first, in Debian's Chromium. Needs `npm run build`.
// Usage: node scripts/console-screenshots.js
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';

// playwright-core lives in test/runtimes (`node scripts/install-test-runtimes.js`), not in the root install.
const { chromium } = createRequire(new URL('../test/runtimes/package.json', import.meta.url))('playwright-core');

const dev = spawn(process.execPath, ['bin/pixhook.js', 'dev', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve, reject) => {
  let out = '';
  dev.stdout.on('data', (chunk) => {
    out += chunk;
    const found = /^(http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(out);
    if (found) resolve(found[1]);
  });
  dev.on('exit', (code) => reject(new Error(`pixhook dev exited ${code}`)));
});
const browser = await chromium.launch({ executablePath: process.env.PIXHOOK_CHROMIUM ?? '/usr/bin/chromium' });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url);
  for (const cents of ['4990', '12900']) {
    await page.getByLabel('Amount (cents)').first().fill(cents);
    await page.getByRole('button', { name: 'Create charge' }).click();
  }
  // The payment's first attempt answers 500 (a fault), so the deliveries page shows the gateway retrying.
  await page.waitForTimeout(1000);
  await page.getByLabel('Fault', { exact: true }).selectOption('fail');
  await page.getByLabel('Attempts hit (empty: until cleared)').fill('1');
  await page.getByRole('button', { name: 'Inject fault' }).click();
  await page.locator('article.charge').nth(1).getByRole('button', { name: 'Pay' }).click();
  await page.locator('table.deliveries tr[data-status="200"]', { hasText: 'transaction_paid' }).first().waitFor();
  await page.getByRole('button', { name: 'Send transfer' }).click();
  await page.waitForTimeout(1500);
  await page.goto(url);
  mkdirSync('docs', { recursive: true });
  await page.screenshot({ path: 'docs/sandbox.png', fullPage: false });
  await page.goto(`${url}deliveries`);
  await page.locator('.chart canvas').first().waitFor();
  await page.screenshot({ path: 'docs/deliveries.png', fullPage: false });
  // One event's attempts unfolded: the gateway's 500 (the fault), then the 200 joined to the receiver's entry.
  const folded = page.locator('table.deliveries tr[data-status="200"]', { hasText: 'transaction_paid' }).first();
  await folded.locator('details.attempts summary').click();
  await folded.screenshot({ path: 'docs/deliveries-attempts.png' });
  // Bulk replay: the dry run's count.
  await page.getByText('Bulk replay').click();
  await page.getByRole('button', { name: 'Dry run' }).click();
  await page.getByRole('status').waitFor();
  await page.screenshot({ path: 'docs/bulk-replay.png', fullPage: false });
  for (const [file, options] of [
    ['docs/deliveries-dark.png', { viewport: { width: 1280, height: 900 }, colorScheme: 'dark' }],
    ['docs/deliveries-phone.png', { viewport: { width: 390, height: 844 }, colorScheme: 'light' }],
  ]) {
    const context = await browser.newContext(options);
    const other = await context.newPage();
    await other.goto(`${url}deliveries`);
    await other.locator('table.deliveries tr[data-state]').first().waitFor();
    await other.screenshot({ path: file, fullPage: file.endsWith('phone.png') });
    await context.close();
  }
  console.log(
    'wrote docs/sandbox.png, docs/deliveries.png, docs/deliveries-attempts.png, docs/deliveries-dark.png, docs/deliveries-phone.png, docs/bulk-replay.png',
  );
} finally {
  await browser.close();
  dev.kill('SIGTERM');
}
