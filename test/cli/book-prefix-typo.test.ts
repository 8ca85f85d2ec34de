import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PaymentBook, Receiver } from '../../src/index.js';
import { buildPayload } from '../../src/testing/index.js';
import { runCli } from '../helpers/cli-process.js';
import { runsHandlersModule } from '../helpers/handlers-module.js';
import { postgresJournaledReceiver, redisJournaledReceiver } from '../helpers/journaled-receivers.js';
import { useRedisTarget } from '../helpers/redis-targets.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { usePostgres } from '../postgres/use-postgres.js';

// A mistyped --book-prefix used to be a fresh, empty book: a payment already applied ran again, and on Postgres
// the CLI created the mistyped book's tables in the user's database. Replay, reconcile and worker never create a book.
const target = useRedisTarget('single');
const postgres = usePostgres();
const tempDir = useTempDirs('pixhook-book-typo-');
const secret = 'whsec_cli_book_typo';

/** One payment, paid and applied through the book: its handler ran once. */
async function paid(receiver: Receiver, book: PaymentBook, id: string): Promise<void> {
  await book.expect({ id, amountInCents: 2590 });
  const body = bytesOf(buildPayload('transaction_paid', { id, amountInCents: 2590 }));
  expect((await receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body })).status).toBe(200);
  await receiver.drain();
}

describe('a --book-prefix with no book behind it', () => {
  it('Postgres: replay refuses (exit 2, one line naming the prefix) and creates no table; the right prefix judges', async () => {
    const { pool, server } = postgres();
    const { receiver, book, inbox } = await postgresJournaledReceiver(pool, secret);
    const since = new Date(Date.now() - 1000).toISOString();
    await paid(receiver, book, 'txn_pg_typo');
    await receiver.close();
    await inbox.close();
    const { handlers, runsFile } = runsHandlersModule(tempDir());
    const env = { RUNS_FILE: runsFile, PIXHOOK_REDIS_URL: undefined, PIXHOOK_POSTGRES_URL: server.url };
    const replay = (prefix: string) =>
      runCli(['replay', '--since', since, '--handlers', handlers, '--force', '--book-prefix', prefix], { env });

    const typo = await replay('pixhook_bok');
    expect(typo.code).toBe(2);
    expect(typo.stderr.trim().split('\n')).toEqual([expect.stringMatching(/'pixhook_bok' were not found.*--no-book/)]);
    expect(readFileSync(runsFile, 'utf8')).toBe('');
    const { rows } = await pool.query<{ t: string | null }>(
      "SELECT to_regclass(n) AS t FROM unnest(ARRAY['pixhook_bok_resources', 'pixhook_bok_held', 'pixhook_bok_flags']) AS n",
    );
    expect(rows.map((row) => row.t)).toEqual([null, null, null]);

    const right = await replay('pixhook_book');
    expect([right.code, right.stderr]).toEqual([0, expect.stringContaining('replayed 1: 1 duplicate; 0 failed') as string]);
    expect(readFileSync(runsFile, 'utf8')).toBe('');
  }, 90_000);

  it('Redis: replay warns once that the book at the prefix is empty; the right prefix does not', async () => {
    const { client, url } = target();
    const { receiver, book } = redisJournaledReceiver(client, secret);
    const since = new Date(Date.now() - 1000).toISOString();
    await paid(receiver, book, 'txn_redis_typo');
    const { handlers, runsFile } = runsHandlersModule(tempDir());
    const env = { RUNS_FILE: runsFile, PIXHOOK_REDIS_URL: undefined };
    const replay = (prefix: string) =>
      runCli(['replay', '--redis', url, '--since', since, '--handlers', handlers, '--force', '--book-prefix', prefix], { env });

    const right = await replay('pixhook:{book}:');
    expect([right.code, right.stderr]).toEqual([0, expect.stringContaining('replayed 1: 1 duplicate') as string]);
    expect(right.stderr).not.toContain('is empty');

    const typo = await replay('pixhook:{bok}:');
    expect(typo.code).toBe(0);
    expect(
      typo.stderr.match(/the book at prefix 'pixhook:\{bok\}:' is empty: a mistyped --book-prefix\? every payment will be judged as new/g),
    ).toHaveLength(1);
  }, 90_000);
});
