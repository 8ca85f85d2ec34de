import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startCli, type RunningCli } from '../helpers/cli-process.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

// Issue 28 §6: `pixhook dev` given SIGINT while an inline handler runs exits only once the handler
// finished (it used to exit 0 about 1 s later with the handler cut off). A real process (dist/), a
// real emulator postback; the handler's length is decided by a gate file, not a timer.
const tempDir = useTempDirs('pixhook-shutdown-');
const handlers = fileURLToPath(new URL('./fixtures/gated-handlers.js', import.meta.url));
let dev: RunningCli | undefined;

afterEach(async () => {
  if (dev?.child.exitCode === null) dev.child.kill('SIGKILL');
  await dev?.exited;
});

/** Creates a charge through the dev console's sandbox form, as the browser does: its postback reaches the receiver. */
async function createCharge(consoleUrl: string): Promise<void> {
  const page = await fetch(consoleUrl);
  const cookie = page.headers.get('set-cookie')?.split(';')[0];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  expect(csrf).toBeDefined();
  const response = await fetch(new URL('/actions/sandbox/charges', consoleUrl), {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: new URL(consoleUrl).origin,
      'sec-fetch-site': 'same-origin',
      ...(cookie !== undefined && { cookie }),
    },
    body: new URLSearchParams({ _csrf: csrf!, amountInCents: '1000' }),
  });
  expect(response.status).toBe(303);
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > giveUpAt) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('pixhook dev on SIGINT', () => {
  it('exits 0 only after the inline handler that was running finished', { timeout: 60_000 }, async () => {
    const dir = tempDir();
    const runs = join(dir, 'runs.txt');
    const gateFile = join(dir, 'gate');
    writeFileSync(runs, '');
    dev = startCli(['dev', '--port', '0', '--handlers', handlers], { PIXHOOK_RUNS_FILE: runs, PIXHOOK_GATE_FILE: gateFile });
    const consoleUrl = (await dev.waitFor(/^(http:\/\/127\.0\.0\.1:\d+\/)$/m, 20_000))[1]!;
    await createCharge(consoleUrl);
    await until(() => readFileSync(runs, 'utf8').includes('start transaction_created'), 20_000);

    dev.child.kill('SIGINT');
    // Past the CLI's 1 s "end even if held" timer: a process that stopped waiting would be gone by now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(dev.child.exitCode).toBeNull();
    expect(readFileSync(runs, 'utf8')).not.toContain('end');

    writeFileSync(gateFile, '');
    expect(await dev.exited).toBe(0);
    expect(existsSync(gateFile)).toBe(true);
    expect(readFileSync(runs, 'utf8')).toBe('start transaction_created\nend transaction_created\n');
  });
});
