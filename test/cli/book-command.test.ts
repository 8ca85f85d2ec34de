import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentBook } from '../../src/index.js';
import { postgresPaymentBook } from '../../src/postgres/index.js';
import { redisPaymentBook } from '../../src/redis/index.js';
import { chargeEvent } from '../book/book-events.js';
import { runCli } from '../helpers/cli-process.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { freshTable, usePostgres } from '../postgres/use-postgres.js';

const handlers = fileURLToPath(new URL('./fixtures/book-handlers.js', import.meta.url));
const tempDir = useTempDirs('pixhook-book-cli-');
const postgres = usePostgres();
let redis: RedisServer;
let client: Redis;
beforeAll(async () => {
  redis = await startRedisServer();
  client = new Redis(redis.url);
});
afterAll(async () => {
  client.disconnect();
  await redis.dispose();
});

/** A book with a charge paid, then refunded, then a late paid held; and the flags that reach it from the CLI. */
async function seeded(backend: 'redis' | 'postgres'): Promise<{ book: PaymentBook; flags: string[]; heldId: string }> {
  let book: PaymentBook;
  let flags: string[];
  if (backend === 'redis') {
    const prefix = `cli:{book${Math.random().toString(36).slice(2, 8)}}:`;
    book = redisPaymentBook({ client, prefix });
    flags = ['--redis', redis.url, '--prefix', prefix];
  } else {
    const table = freshTable('book');
    const pgBook = postgresPaymentBook({ db: postgres().pool, table });
    await pgBook.migrate();
    book = pgBook;
    flags = ['--postgres', postgres().server.url, '--table', table];
  }
  await book.record(chargeEvent('transaction_paid', { id: 'ch_1', endToEndId: 'E1' }, { deliveryId: 'd\u001b[31m1' }), { dedupeKey: 'p' });
  await book.record(chargeEvent('transaction_refunded', { id: 'ch_1', endToEndId: 'E1' }, { scope: 'user' }), { dedupeKey: 'r' });
  const held = await book.record(chargeEvent('transaction_created', { id: 'ch_1' }), { dedupeKey: 'c' });
  return { book, flags, heldId: (held as { heldId: string }).heldId };
}

describe.each(['redis', 'postgres'] as const)('pixhook book against %s', (backend) => {
  it('show prints the timeline one escaped line per entry, and --json the resource', async () => {
    const { flags } = await seeded(backend);
    const shown = await runCli(['book', 'show', 'ch_1', ...flags]);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.trim().split('\n');
    expect(lines[0]).toBe('transaction ch_1 refunded 1000 cents');
    expect(lines.slice(1).map((line) => line.split(' ').slice(1, 3).join(' '))).toEqual([
      'apply transaction_paid',
      'apply transaction_refunded',
      'held transaction_created',
    ]);
    expect(lines[1]).toContain('delivery=d\\u001b[31m1');
    expect(shown.stdout).not.toContain('\u001b');
    const json = await runCli(['book', 'show', 'ch_1', '--json', ...flags]);
    expect(JSON.parse(json.stdout)).toMatchObject({ id: 'ch_1', status: 'refunded', timeline: [{}, {}, { outcome: 'held' }] });
    const missing = await runCli(['book', 'show', 'nope', ...flags]);
    expect([missing.code, missing.stderr.trim().split('\n').length]).toEqual([1, 1]);
    expect(missing.stderr).toMatch(/not_found/);
  });

  it('held lists the held event; release runs its handlers exactly once across two processes; a second release exits 1', async () => {
    const { flags, heldId, book } = await seeded(backend);
    const held = await runCli(['book', 'held', ...flags]);
    expect(held.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^${heldId} held \\S+ transaction_created transaction ch_1 stale_status$`)),
    ]);
    expect(JSON.parse((await runCli(['book', 'held', '--json', ...flags])).stdout)).toMatchObject([{ heldId, state: 'held' }]);
    // Issue 31: it printed nothing about where it read; now one stderr line names the prefix or table.
    expect(held.stderr).toBe(
      `pixhook: 1 held in the ${backend === 'redis' ? 'Redis book at prefix' : 'Postgres book at table prefix'} "${flags[3]}"\n`,
    );
    const file = join(tempDir(), 'handled');
    const failed = await runCli(['book', 'release', heldId, '--handlers', handlers, ...flags], { env: { HANDLED_FILE: file, FAIL: '1' } });
    expect([failed.code, failed.stderr.trim()]).toEqual([1, `pixhook: handler_failed: held event "${heldId}" was not released`]);
    expect(existsSync(file)).toBe(false);
    const runs = await Promise.all(
      [0, 1].map(() => runCli(['book', 'release', heldId, '--handlers', handlers, '--json', ...flags], { env: { HANDLED_FILE: file } })),
    );
    expect(runs.map((run) => run.code).sort()).toEqual([0, 1]);
    expect(runs.map((run) => JSON.parse(run.stdout) as unknown)).toContainEqual({ ok: false, reason: 'already_released' });
    expect(readFileSync(file, 'utf8')).toBe('transaction_created ch_1\n');
    expect(await book.held()).toEqual([]);
    const dismissed = await runCli(['book', 'dismiss', heldId, ...flags]);
    expect([dismissed.code, dismissed.stderr]).toEqual([
      1,
      `pixhook: already_released: held event "${heldId}" was already released, so it was not dismissed\n`,
    ]);
    // Issue 31: the second release said "was not released", as if it had failed.
    const again = await runCli(['book', 'release', heldId, '--handlers', handlers, ...flags], { env: { HANDLED_FILE: file } });
    expect([again.code, again.stderr]).toEqual([1, `pixhook: already_released: held event "${heldId}" was already released\n`]);
    expect(readFileSync(file, 'utf8')).toBe('transaction_created ch_1\n');
  });

  it('release refuses a payment whose charge was refunded since it was held: exit 1 refunded_since_held, saying why; dismiss still closes it', async () => {
    const { book, flags } = await seeded(backend);
    await book.expect({ id: 'ch_2', amountInCents: 2000 });
    const held = (await book.record(chargeEvent('transaction_paid', { id: 'ch_2', endToEndId: 'E2' }), { dedupeKey: 'p2' })) as {
      heldId: string;
    };
    const refund = chargeEvent('transaction_refunded', { id: 'ch_2', endToEndId: 'E2', refund: { id: 'R2', amountInCents: 1000 } });
    expect(await book.record(refund, { dedupeKey: 'r2' })).toMatchObject({ outcome: 'apply' });
    const file = join(tempDir(), 'handled');
    const refused = await runCli(['book', 'release', held.heldId, '--handlers', handlers, ...flags], { env: { HANDLED_FILE: file } });
    expect([refused.code, refused.stdout]).toEqual([1, '']);
    expect(refused.stderr).toBe(
      `pixhook: refunded_since_held: held event "${held.heldId}" was not released: its charge was refunded (or the money returned) since it was held: the money is gone, so it stays held; dismiss it\n`,
    );
    const json = await runCli(['book', 'release', held.heldId, '--handlers', handlers, '--json', ...flags], {
      env: { HANDLED_FILE: file },
    });
    expect([json.code, JSON.parse(json.stdout) as unknown]).toEqual([1, { ok: false, reason: 'refunded_since_held' }]);
    expect(existsSync(file)).toBe(false);
    expect(await book.heldEvent(held.heldId)).toMatchObject({ state: 'held' });
    const dismissed = await runCli(['book', 'dismiss', held.heldId, '--note', 'the money went back', ...flags]);
    expect([dismissed.code, dismissed.stdout]).toEqual([0, `dismissed ${held.heldId}\n`]);
  });

  it('dismiss closes a held event with its note; an unknown id exits 1 not_found', async () => {
    const { flags, heldId, book } = await seeded(backend);
    const dismissed = await runCli(['book', 'dismiss', heldId, '--note', 'a late created', ...flags]);
    expect([dismissed.code, dismissed.stdout]).toEqual([0, `dismissed ${heldId}\n`]);
    expect((await book.get('ch_1'))?.timeline.at(-1)?.outcome).toBe('dismissed');
    const again = await runCli(['book', 'dismiss', heldId, ...flags]);
    expect([again.code, again.stderr]).toEqual([1, `pixhook: dismissed: held event "${heldId}" was already dismissed\n`]);
    const unknown = await runCli(['book', 'dismiss', 'held_x', ...flags]);
    expect([unknown.code, unknown.stderr]).toEqual([1, 'pixhook: not_found: held event "held_x" was not dismissed\n']);
  });

  it('--by and --note go on the trail: show prints them, held --closed lists the closed event with who and why', async () => {
    const { flags, heldId, book } = await seeded(backend);
    const dismissed = await runCli(['book', 'dismiss', heldId, '--note', 'late \u001b[31m created', '--by', 'ana', ...flags]);
    expect(dismissed.code).toBe(0);
    expect((await book.get('ch_1'))?.timeline.at(-1)).toMatchObject({ outcome: 'dismissed', by: 'ana', note: 'late \u001b[31m created' });
    const shown = await runCli(['book', 'show', 'ch_1', ...flags]);
    expect(shown.stdout.trim().split('\n').at(-1)).toMatch(/ dismissed transaction_created .* by="ana" note="late \\u001b\[31m created"$/);
    const closed = await runCli(['book', 'held', '--closed', ...flags]);
    expect(closed.stdout.trim().split('\n')).toHaveLength(1);
    expect(closed.stdout).toContain(`${heldId} dismissed `);
    expect(closed.stdout).toContain('by="ana"');
    // Issue 37: the summary said "1 held" under a list of closed events.
    expect(closed.stderr).toBe(
      `pixhook: 1 dismissed in the ${backend === 'redis' ? 'Redis book at prefix' : 'Postgres book at table prefix'} "${flags[3]}"\n`,
    );
    expect((await runCli(['book', 'held', ...flags])).stdout).toBe('');
    const misuse = await runCli(['book', 'show', 'ch_1', '--by', 'ana', ...flags]);
    expect(misuse.code).toBe(2);
  });
});

describe('pixhook book says where it read', () => {
  it('held on a book with nothing at the default prefix says so, naming the prefix (exit 0, stdout empty)', async () => {
    // Issue 31: the docs' prefix differed from the CLI's default, and `book held` printed nothing with exit 0.
    const run = await runCli(['book', 'held', '--redis', redis.url]);
    expect([run.code, run.stdout]).toEqual([0, '']);
    expect(run.stderr).toBe(
      'pixhook: nothing is held in the Redis book at prefix "pixhook:{book}:" (is that where your receiver\'s book writes? --prefix / --table read another)\n',
    );
    const json = await runCli(['book', 'held', '--json', '--redis', redis.url]);
    expect(JSON.parse(json.stdout)).toEqual([]);
  });

  it('show of an unknown id names the prefix it read', async () => {
    const run = await runCli(['book', 'show', 'ch_nowhere', '--redis', redis.url, '--prefix', 'shop:{book}:']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('pixhook: not_found: the Redis book at prefix "shop:{book}:" holds no charge or transfer "ch_nowhere"\n');
  });
});

describe('pixhook book usage', () => {
  it.each([
    [['book'], /book needs a subcommand/],
    [['book', 'shwo'], /unknown subcommand/],
    [['book', 'show', 'x'], /needs one of --redis <url> or --postgres <url>/],
    [['book', 'held', 'extra', '--redis', 'redis://127.0.0.1:1'], /takes no arguments/],
    [['book', 'release', 'h', '--redis', 'redis://127.0.0.1:1'], /needs --handlers <module>/],
  ])('%j is one usage line, exit 2', async (args, message) => {
    const run = await runCli(args, { env: { PIXHOOK_REDIS_URL: undefined, PIXHOOK_POSTGRES_URL: undefined } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr.trim()).toMatch(/\(pixhook book( \w+)? --help\)$/);
  });

  it('--help is the common format, exit 0', async () => {
    const run = await runCli(['book', 'release', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/--handlers <module>/);
  });
});
