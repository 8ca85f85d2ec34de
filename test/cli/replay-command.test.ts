import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createReceiver } from '../../src/index.js';
import { redisDedupeStore, redisJournal } from '../../src/redis/index.js';
import { buildPayload } from '../../src/testing/index.js';
import { jsonLines, runCli } from '../helpers/cli-process.js';
import { useRedisTarget } from '../helpers/redis-targets.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

// Issue 31: `pixhook replay --since --until --event --answer --reason --resource [--dry-run] [--force]`.
const target = useRedisTarget('single');
const tempDir = useTempDirs('pixhook-replay-');
const secret = 'whsec_cli_replay';

describe('pixhook replay over a shared Redis journal', () => {
  it('counts on --dry-run, replays through dedupe (duplicate), and --force runs the handlers again', async () => {
    const client = target().client;
    let failing = true;
    const receiver = createReceiver({ secret, journal: redisJournal({ client }), store: redisDedupeStore({ client }) }).on(
      'transaction_paid',
      (event) => {
        if (failing && event.transaction.id === 'txn_cli_fails') throw new Error('the ledger is down');
      },
    );
    const since = new Date(Date.now() - 1000).toISOString();
    for (const id of ['txn_cli_1', 'txn_cli_2', 'txn_cli_fails']) {
      const body = bytesOf(buildPayload('transaction_paid', { id, amountInCents: 100 }));
      await receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body });
    }
    failing = false;
    await receiver.drain();

    const dir = tempDir();
    const runsFile = join(dir, 'runs.txt');
    writeFileSync(runsFile, '');
    const handlers = join(dir, 'handlers.mjs');
    writeFileSync(
      handlers,
      "import { appendFileSync } from 'node:fs';\nexport default (p) => p.on('transaction_paid', (e) => appendFileSync(process.env.RUNS_FILE, e.transaction.id + '\\n'));\n",
    );
    const env = { RUNS_FILE: runsFile, PIXHOOK_REDIS_URL: undefined };
    const url = target().url;

    const dry = await runCli(['replay', '--redis', url, '--since', since, '--event', 'transaction_paid', '--dry-run'], { env });
    // The two handled ones would come back duplicate: not counted.
    expect([dry.code, dry.stderr]).toEqual([0, expect.stringContaining('dry run: 1 would be replayed; 2 already handled') as string]);
    expect(jsonLines(dry.stdout).map((l) => l['resourceId'])).toEqual(['txn_cli_fails']);
    expect(readFileSync(runsFile, 'utf8')).toBe('');

    const failed = await runCli(['replay', '--redis', url, '--since', since, '--answer', '500', '--handlers', handlers], { env });
    expect(failed.code).toBe(0);
    expect(failed.stderr).toContain('replayed 1: 1 handled; 0 failed');
    expect(readFileSync(runsFile, 'utf8')).toBe('txn_cli_fails\n');

    const again = await runCli(['replay', '--redis', url, '--since', since, '--resource', 'txn_cli_1', '--handlers', handlers], { env });
    expect(again.stderr).toContain('replayed 1: 1 duplicate');
    expect(readFileSync(runsFile, 'utf8')).toBe('txn_cli_fails\n');

    const forced = await runCli(
      ['replay', '--redis', url, '--since', since, '--resource', 'txn_cli_1', '--handlers', handlers, '--force'],
      {
        env,
      },
    );
    expect([forced.code, forced.stderr]).toEqual([0, expect.stringContaining('replayed 1: 1 handled') as string]);
    expect(readFileSync(runsFile, 'utf8')).toBe('txn_cli_fails\ntxn_cli_1\n');

    // A handler that fails: the run is counted failed, exit 1.
    const failingHandlers = join(dir, 'failing.mjs');
    writeFileSync(failingHandlers, "export default (p) => p.on('transaction_paid', () => { throw new Error('still down'); });\n");
    const broken = await runCli(
      ['replay', '--redis', url, '--since', since, '--resource', 'txn_cli_2', '--handlers', failingHandlers, '--force'],
      {
        env,
      },
    );
    // Told once, not `1 failed; 1 failed`.
    expect([broken.code, broken.stderr]).toEqual([1, expect.stringMatching(/replayed 1: 1 failed \(journal on /) as string]);
  }, 90_000);

  it.each([
    [['replay', '--dry-run'], 'needs --redis'],
    [['replay', '--redis', 'redis://127.0.0.1:1', '--since', 'yesterday', '--dry-run'], 'since'],
    [['replay', '--redis', 'redis://127.0.0.1:1', '--answer', 'x', '--dry-run'], 'answer'],
    [['replay', '--redis', 'redis://127.0.0.1:1'], '--handlers'],
    [['replay', '--redis', 'redis://127.0.0.1:1', '--dry-run', '--force'], '--force'],
  ])('%j is a usage error (exit 2)', async (args, hint) => {
    const run = await runCli(args, { env: { PIXHOOK_REDIS_URL: undefined } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(hint);
  });
});
