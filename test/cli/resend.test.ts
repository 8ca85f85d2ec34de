import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createReceiver, type DedupeStore, type DeliveryJournal, type JournalEntry } from '../../src/index.js';
import { postgresInbox, postgresJournal } from '../../src/postgres/index.js';
import { redisDedupeStore, redisJournal } from '../../src/redis/index.js';
import { buildPayload } from '../../src/testing/index.js';
import { runCli, startCli } from '../helpers/cli-process.js';
import { freePort } from '../helpers/free-port.js';
import { useRedisTarget } from '../helpers/redis-targets.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { usePostgres } from '../postgres/use-postgres.js';

// Issue 37 §4: `pixhook resend <delivery id> (--redis | --postgres | --dev)` sends one journaled delivery again
// through the receiver's processing — the console's replay, so dedupe decides: a failed delivery runs, a
// handled one comes back duplicate.
const redis = useRedisTarget('single');
const postgres = usePostgres();
const tempDir = useTempDirs('pixhook-resend-');
const secret = 'whsec_cli_resend';

/** Two deliveries journaled on the backend: txn_ok handled, txn_fails answered 500 (its handler failed). */
async function journalTwo(journal: DeliveryJournal, store: DedupeStore): Promise<Record<'ok' | 'fails', JournalEntry>> {
  let failing = true;
  const receiver = createReceiver({ secret, journal, store }).on('transaction_paid', (event) => {
    if (failing && event.transaction.id === 'txn_fails') throw new Error('the ledger is down');
  });
  for (const id of ['txn_ok', 'txn_fails']) {
    const body = bytesOf(buildPayload('transaction_paid', { id, amountInCents: 700 }));
    await receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body });
  }
  failing = false;
  await receiver.drain();
  await receiver.close();
  const entry = async (resource: string) => (await journal.list({ resource }))[0]!;
  await expect.poll(() => journal.list({ resource: 'txn_fails' }).then((l) => l.length)).toBe(1);
  return { ok: await entry('txn_ok'), fails: await entry('txn_fails') };
}

/** A handlers module that appends each event's id to a file. */
function handlersWritingTo(): { handlers: string; runs: () => string[]; env: Record<string, string | undefined> } {
  const dir = tempDir();
  const runsFile = join(dir, 'runs.txt');
  writeFileSync(runsFile, '');
  const handlers = join(dir, 'handlers.mjs');
  writeFileSync(
    handlers,
    "import { appendFileSync } from 'node:fs';\nexport default (p) => p.on('transaction_paid', (e) => appendFileSync(process.env.RUNS_FILE, e.transaction.id + '\\n'));\n",
  );
  return {
    handlers,
    runs: () => readFileSync(runsFile, 'utf8').split('\n').filter(Boolean),
    env: { RUNS_FILE: runsFile, PIXHOOK_REDIS_URL: undefined },
  };
}

describe('pixhook resend from a shared journal', () => {
  it('--redis: the failed delivery runs the handlers once; a handled one comes back duplicate', async () => {
    const client = redis().client;
    const { ok, fails } = await journalTwo(redisJournal({ client }), redisDedupeStore({ client }));
    const { handlers, runs, env } = handlersWritingTo();
    const url = redis().url;

    const failed = await runCli(['resend', fails.id, '--redis', url, '--handlers', handlers], { env });
    expect(failed.stdout).toMatch(/^--> transaction_paid txn_fails 700 \(replay\)\n<-- 200 handled/m);
    expect(failed.stdout).toContain(`pixhook resend: "${fails.id}" sent again as "`);
    expect(failed.code).toBe(0);
    expect(runs()).toEqual(['txn_fails']);

    const handled = await runCli(['resend', ok.id, '--redis', url, '--handlers', handlers], { env });
    expect(handled.stdout).toMatch(/^<-- 200 duplicate/m);
    expect(runs()).toEqual(['txn_fails']);
    // --force: a dedupe store of its own, so the handlers run again.
    expect((await runCli(['resend', ok.id, '--redis', url, '--handlers', handlers, '--force'], { env })).code).toBe(0);
    expect(runs()).toEqual(['txn_fails', 'txn_ok']);

    const missing = await runCli(['resend', 'no-such-id', '--redis', url, '--handlers', handlers], { env });
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('no delivery "no-such-id" in the journal') as string]);
  });

  it('--postgres: the same, from the journal and the inbox in PostgreSQL', async () => {
    const { pool, server } = postgres();
    const inbox = postgresInbox({ pool });
    await inbox.migrate();
    const { ok, fails } = await journalTwo(postgresJournal({ db: pool }), inbox.store);
    await inbox.close();
    const { handlers, runs, env } = handlersWritingTo();

    const failed = await runCli(['resend', fails.id, '--postgres', server.url, '--handlers', handlers], { env });
    expect(failed.stdout).toMatch(/^--> transaction_paid txn_fails 700 \(replay\)\n<-- 200 handled/m);
    expect(failed.code).toBe(0);
    const handled = await runCli(['resend', ok.id, '--postgres', server.url, '--handlers', handlers], { env });
    expect(handled.stdout).toMatch(/^<-- 200 duplicate/m);
    expect(runs()).toEqual(['txn_fails']);
  }, 60_000);

  it.each([
    [['resend', 'x'], /give one of --redis <url>, --postgres <url> or --dev <url>/],
    [['resend', 'x', '--redis', 'redis://127.0.0.1:1'], /needs --handlers <module>/],
    [['resend', 'x', '--dev', 'http://127.0.0.1:1/', '--force'], /--handlers and --force apply to --redis and --postgres/],
    [['resend', '--dev', 'http://127.0.0.1:1/'], /which delivery\?/],
  ])('usage error %j exits 2', async (args, message) => {
    const run = await runCli(args, { env: { PIXHOOK_REDIS_URL: undefined } });
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(message) as string]);
  });
});

describe('pixhook resend --dev', () => {
  it('runs a delivery again on the sandbox’s receiver (duplicate once handled); exit 3 when no dev answers', async () => {
    const dev = startCli(['dev', '--port', '0'], { PIXHOOK_SECRET: undefined });
    try {
      const url = (await dev.waitFor(/^(http:\/\/127\.0\.0\.1:\d+\/)$/m, 20_000))[1]!;
      const devSecret = /^PIXHOOK_SECRET=(whsec_\S+)$/m.exec(dev.stdout())![1]!;
      const sent = await runCli(
        ['send', 'transaction_paid', '--url', `${url}webhooks/pix`, '--secret', devSecret, '--id', 'txn_dev_resend'],
        {
          env: { PIXHOOK_SECRET: undefined },
        },
      );
      expect(sent.code).toBe(0);
      const list = async () => (await (await fetch(`${url}api/deliveries`)).json()) as JournalEntry[];
      await expect.poll(async () => (await list()).length).toBe(1);
      const [entry] = await list();
      const run = await runCli(['resend', entry!.id, '--dev', url]);
      expect(run.stdout).toMatch(/^--> transaction_paid txn_dev_resend \d+ \(replay\)\n<-- 200 duplicate/m);
      expect(run.code).toBe(0);
      // The sandbox journaled the replay, and printed it in its own terminal.
      await expect.poll(async () => (await list()).filter((e) => e.replayOf === entry!.id).length).toBe(1);
      await expect.poll(() => dev.stdout()).toMatch(/--> transaction_paid txn_dev_resend \d+ \(replay\)\n<-- 200 duplicate/);
      const missing = await runCli(['resend', 'nope', '--dev', url]);
      expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining("in this sandbox's journal") as string]);
    } finally {
      await dev.stop();
    }
    const nobody = await runCli(['resend', 'x', '--dev', `http://127.0.0.1:${await freePort()}/`]);
    expect([nobody.code, nobody.stderr]).toEqual([3, expect.stringContaining('no pixhook dev answers at') as string]);
  });
});
