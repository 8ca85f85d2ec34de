import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PaymentBook, Receiver } from '../../src/index.js';
import { buildPayload } from '../../src/testing/index.js';
import { jsonLines, runCli } from '../helpers/cli-process.js';
import { runsHandlersModule } from '../helpers/handlers-module.js';
import { postgresJournaledReceiver, redisJournaledReceiver } from '../helpers/journaled-receivers.js';
import { useRedisTarget } from '../helpers/redis-targets.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { usePostgres } from '../postgres/use-postgres.js';

// Issue 36 §2: `pixhook replay` passes the same door as the webhook — the book kept on its backend judges every run.
const target = useRedisTarget('single');
const postgres = usePostgres();
const tempDir = useTempDirs('pixhook-replay-book-');
const secret = 'whsec_cli_replay_book';

async function deliver(receiver: Receiver, id: string, amountInCents: number): Promise<number> {
  const body = bytesOf(buildPayload('transaction_paid', { id, amountInCents }));
  return (await receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body })).status;
}

/** A handler module that appends each paid id to RUNS_FILE. */
const handlersModule = () => runsHandlersModule(tempDir());

/** A charge expected at R$ 25,90, paid once right and once (another charge) with the wrong amount. */
async function paidAndHeld(receiver: Receiver, book: PaymentBook, tag: string): Promise<void> {
  await book.expect({ id: `txn_${tag}_ok`, amountInCents: 2590 });
  await book.expect({ id: `txn_${tag}_wrong`, amountInCents: 2590 });
  expect(await deliver(receiver, `txn_${tag}_ok`, 2590)).toBe(200);
  expect(await deliver(receiver, `txn_${tag}_wrong`, 100)).toBe(200);
  await receiver.drain();
  expect((await book.held()).map((held) => held.resourceId)).toEqual([`txn_${tag}_wrong`]);
}

describe('pixhook replay runs through the book kept on its backend', () => {
  it('Redis: once the done marks expired, a handled payment is a duplicate and a held one stays held (--force too); --no-book warns', async () => {
    const { client, url } = target();
    let ran = 0;
    const { receiver, book } = redisJournaledReceiver(client, secret, () => void ran++);
    const since = new Date(Date.now() - 1000).toISOString();
    await paidAndHeld(receiver, book, 'redis');
    expect(ran).toBe(1);
    // The done marks expired (deleted here: deterministic, as dedupeTtlMs passing).
    const marks = await client.keys('pixhook:dedupe:*');
    expect(marks.length).toBeGreaterThanOrEqual(2);
    await client.del(...marks);

    const { handlers, runsFile } = handlersModule();
    const env = { RUNS_FILE: runsFile, PIXHOOK_REDIS_URL: undefined };
    const replay = await runCli(['replay', '--redis', url, '--since', since, '--handlers', handlers], { env });
    expect(replay.stderr).toContain('replayed 2: 1 duplicate, 1 held; 0 failed');
    expect(jsonLines(replay.stdout).map((line) => [line['resourceId'], line['state']])).toEqual([
      ['txn_redis_ok', 'duplicate'],
      ['txn_redis_wrong', 'held'],
    ]);
    expect(readFileSync(runsFile, 'utf8')).toBe('');

    // A dry run does not count what the journal shows handled.
    const dry = await runCli(['replay', '--redis', url, '--since', since, '--dry-run'], { env });
    expect(dry.stderr).toContain('dry run: 1 would be replayed; 1 already handled');
    expect(jsonLines(dry.stdout).map((line) => line['resourceId'])).toEqual(['txn_redis_wrong']);
    // --force skips the dedupe store only: the book still judges.
    const forced = await runCli(['replay', '--redis', url, '--since', since, '--handlers', handlers, '--force'], { env });
    expect(forced.stderr).toContain('replayed 2: 1 duplicate, 1 held; 0 failed');
    expect(readFileSync(runsFile, 'utf8')).toBe('');

    // Another prefix is another book: one that never saw these payments.
    const other = await runCli(
      [
        'replay',
        '--redis',
        url,
        '--since',
        since,
        '--resource',
        'txn_redis_wrong',
        '--handlers',
        handlers,
        '--force',
        '--book-prefix',
        'other:{book}:',
      ],
      { env },
    );
    expect(other.stderr).toContain('replayed 1: 1 handled');
    expect(readFileSync(runsFile, 'utf8')).toBe('txn_redis_wrong\n');

    const bare = await runCli(
      ['replay', '--redis', url, '--since', since, '--resource', 'txn_redis_ok', '--handlers', handlers, '--force', '--no-book'],
      {
        env,
      },
    );
    expect(bare.stderr.match(/--no-book: the handlers run without the payment book/g)).toHaveLength(1);
    expect(readFileSync(runsFile, 'utf8')).toBe('txn_redis_wrong\ntxn_redis_ok\n');
  }, 90_000);

  it('Redis without a journal: a dry run says why it found nothing', async () => {
    // Another database of the same server: nothing was ever journaled there.
    const url = `${target().url}/7`;
    const run = await runCli(['replay', '--redis', url, '--dry-run', '--since', new Date().toISOString()], {
      env: { PIXHOOK_REDIS_URL: undefined },
    });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('dry run: 0 would be replayed');
    expect(run.stderr).toMatch(/hint: .*journal: redisJournal/);
  }, 30_000);

  it('Postgres from PIXHOOK_POSTGRES_URL: a held payment stays held', async () => {
    const { pool, server } = postgres();
    const { receiver, book, inbox } = await postgresJournaledReceiver(pool, secret);
    const since = new Date(Date.now() - 1000).toISOString();
    await paidAndHeld(receiver, book, 'pg');
    await receiver.close();
    await inbox.close();
    const { handlers, runsFile } = handlersModule();
    const replay = await runCli(['replay', '--since', since, '--handlers', handlers, '--force'], {
      env: { RUNS_FILE: runsFile, PIXHOOK_REDIS_URL: undefined, PIXHOOK_POSTGRES_URL: server.url },
    });
    expect([replay.code, replay.stderr]).toEqual([0, expect.stringContaining('replayed 2: 1 duplicate, 1 held; 0 failed') as string]);
    expect(readFileSync(runsFile, 'utf8')).toBe('');
  }, 90_000);
});
