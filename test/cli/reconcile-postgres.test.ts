import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApiPixEmulator, Emulator } from '../../src/emulator/index.js';
import { postgresPaymentBook, postgresWatchStore } from '../../src/postgres/index.js';
import { apiPixCliEnv, expectedCharges, startApiPix, txid } from '../api-pix-client/emulator-setup.js';
import { jsonLines, runCli } from '../helpers/cli-process.js';
import { paidGatewayCharges } from '../helpers/paid-gateway-charges.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { usePostgres } from '../postgres/use-postgres.js';

// Issue 36 §2 "One door": `pixhook reconcile --postgres` (both profiles) judges by the book the app keeps in that
// database, and shares its dedupe (the inbox's store), its watch list and its cursors there. Before, the flag was
// unknown (exit 2) and a reconcile beside a Postgres app ran a payment its book held.
const postgres = usePostgres();
const tempDir = useTempDirs('pixhook-reconcile-pg-');
const gatewayHandlers = fileURLToPath(new URL('../reconcile/fixtures/handlers.js', import.meta.url));
const pixHandlers = fileURLToPath(new URL('../api-pix-client/fixtures/pix-handlers.js', import.meta.url));
const noEnv = { PIXHOOK_REDIS_URL: undefined, PIXHOOK_POSTGRES_URL: undefined };
let emulators: (Emulator | ApiPixEmulator)[] = [];
afterEach(async () => {
  await Promise.all(emulators.map((emulator) => emulator.close()));
  emulators = [];
});

/** The gateway emulator with one paid charge per amount (watched in `watch`), and a HANDLED_FILE for the handlers. */
async function paidCharges(amounts: number[], watch?: { watch(id: string, createdAt?: number): unknown }) {
  const { emulator, ids, env: gateway } = await paidGatewayCharges(amounts, watch);
  emulators.push(emulator);
  const handled = join(tempDir(), 'handled.jsonl');
  writeFileSync(handled, '');
  const env = { ...noEnv, ...gateway, HANDLED_FILE: handled };
  return { ids, env, handledIds: () => jsonLines(readFileSync(handled, 'utf8')).map((line) => line['id']) };
}

describe('pixhook reconcile --postgres (gateway profile)', () => {
  it("reads the app's watch list and holds a wrong-amount payment the app's book expects: it never runs", async () => {
    const { pool, server } = postgres();
    const book = postgresPaymentBook({ db: pool });
    await book.migrate();
    const watchStore = postgresWatchStore({ pool });
    await watchStore.migrate();
    const { ids, env, handledIds } = await paidCharges([2590, 100], watchStore);
    const [right, wrong] = ids as [string, string];
    for (const id of ids) await book.expect({ id, amountInCents: 2590 });

    const args = ['reconcile', '--handlers', gatewayHandlers, '--once', '--postgres', server.url, '--min-age', '0s'];
    const run = await runCli(args, { env, killAfterMs: 60_000 });
    expect([run.code, run.stderr]).toEqual([0, expect.not.stringContaining('no --redis or --postgres') as string]);
    expect(jsonLines(run.stdout).at(-1)).toMatchObject({ type: 'summary', checked: 2, recovered: 1, held: 1, failed: 0 });
    expect(handledIds()).toEqual([right]);
    expect((await book.held()).map((held) => [held.resourceId, held.violations.map((violation) => violation.reason)])).toEqual([
      [wrong, ['amount_mismatch']],
    ]);
    // The right one is applied in the app's book: a second read (named again) is a duplicate, never a second run.
    const again = await runCli([...args, '--charge', right], { env, killAfterMs: 60_000 });
    expect(again.code).toBe(0);
    expect(jsonLines(again.stdout).at(-1)).toMatchObject({ type: 'summary', recovered: 0, failed: 0 });
    expect(handledIds()).toEqual([right]);
  }, 90_000);

  it('a handler that fails once: nothing counts as applied, and the next run handles the payment once', async () => {
    const { pool, server } = postgres();
    const book = postgresPaymentBook({ db: pool });
    await book.migrate();
    const { ids, env, handledIds } = await paidCharges([1990]);
    const id = ids[0]!;
    await book.expect({ id, amountInCents: 1990 });
    const failOnce = join(tempDir(), 'failed-once');
    const args = ['reconcile', '--handlers', gatewayHandlers, '--once', '--postgres', server.url, '--charge', id];
    const run = (n: number) =>
      runCli(args, { env: { ...env, FAIL_ONCE_FILE: failOnce }, killAfterMs: 60_000 }).then((r) => [n, r] as const);

    const [, failed] = await run(1);
    expect(readFileSync(failOnce, 'utf8')).toBe(id); // the fault happened, in this run
    expect(failed.code).toBe(1);
    expect(jsonLines(failed.stdout).at(-1)).toMatchObject({ type: 'summary', recovered: 0, failed: 1 });
    expect(handledIds()).toEqual([]);
    expect((await book.get(id))?.status).not.toBe('paid');

    const [, handled] = await run(2);
    expect(handled.code).toBe(0);
    expect(jsonLines(handled.stdout).at(-1)).toMatchObject({ type: 'summary', recovered: 1, failed: 0 });
    const [, again] = await run(3);
    expect(jsonLines(again.stdout).at(-1)).toMatchObject({ type: 'summary', recovered: 0, failed: 0 });
    expect(handledIds()).toEqual([id]);
    expect((await book.get(id))?.status).toBe('paid');
  }, 90_000);

  it('--no-book runs without the book and warns once; PIXHOOK_POSTGRES_URL names the database too', async () => {
    const { pool, server } = postgres();
    const book = postgresPaymentBook({ db: pool });
    await book.migrate();
    const { ids, env, handledIds } = await paidCharges([100]);
    await book.expect({ id: ids[0]!, amountInCents: 2590 });
    const run = await runCli(['reconcile', '--handlers', gatewayHandlers, '--once', '--charge', ids[0]!, '--no-book'], {
      env: { ...env, PIXHOOK_POSTGRES_URL: server.url },
      killAfterMs: 60_000,
    });
    expect(run.code).toBe(0);
    expect(run.stderr.match(/--no-book: the handlers run without the payment book/g)).toHaveLength(1);
    expect(run.stderr).not.toContain('no --redis or --postgres');
    expect(handledIds()).toEqual(ids);
    // It ran on that database: its done mark is the inbox's row, as the app's receivers would find it.
    const marks = await pool.query('SELECT key FROM "pixhook_inbox" WHERE scope = $1 AND key LIKE $2', ['delivery', `%${ids[0]!}%`]);
    expect(marks.rows).toHaveLength(1);
    // The database is the file's: the first test's held payment is there too, this one is not.
    expect((await book.held()).map((held) => held.resourceId)).not.toContain(ids[0]);
  }, 90_000);

  it('--redis with --postgres is a usage error (exit 2), on both profiles, before anything is opened', async () => {
    const both = ['--redis', 'redis://127.0.0.1:9', '--postgres', 'postgres://127.0.0.1:9/none'];
    const gatewayEnv = { ...noEnv, PIXHOOK_API_KEY: 'pk', PIXHOOK_API_SECRET: 'sk', PIXHOOK_BASE_URL: 'http://127.0.0.1:9' };
    const gateway = await runCli(['reconcile', '--handlers', gatewayHandlers, '--once', ...both], { env: gatewayEnv });
    const apiPix = await runCli(['reconcile', '--profile', 'api-pix', '--handlers', pixHandlers, '--once', ...both], { env: noEnv });
    for (const run of [gateway, apiPix]) {
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split('\n')).toEqual([expect.stringContaining('give --redis or --postgres, not both')]);
    }
  }, 30_000);
});

describe('pixhook reconcile --profile api-pix --postgres', () => {
  it("holds a wrong-amount Pix the app's book expects, runs the right one, and keeps its cursor in the database", async () => {
    const { pool, server } = postgres();
    const book = postgresPaymentBook({ db: pool });
    await book.migrate();
    const heldBefore = new Set((await book.held()).map((held) => held.heldId));
    const heldSince = async () => (await book.held()).filter((held) => !heldBefore.has(held.heldId));
    const emulator = await startApiPix();
    emulators.push(emulator);
    const from = new Date(Date.now() - 5_000).toISOString();
    const [right, wrong] = [txid('pg1'), txid('pg2')];
    await expectedCharges(emulator, book, [right, wrong], 2590);
    const paid = emulator.pay(right)['endToEndId'] as string;
    emulator.pay(wrong, { amountInCents: 100 });
    await emulator.idle();
    const env = apiPixCliEnv(emulator);
    const args = ['reconcile', '--profile', 'api-pix', '--postgres', server.url, '--handlers', pixHandlers, '--once'];
    const window = ['--from', from, '--overlap', '0s', '--settle', '0s'];

    const run = await runCli([...args, ...window], { env, killAfterMs: 60_000 });
    expect(run.code).toBe(0);
    expect(run.stderr.match(/handled \S+ reconcile/g)).toEqual([`handled ${paid} reconcile`]);
    expect(jsonLines(run.stdout).find((line) => line['type'] === 'summary')).toMatchObject({ recovered: 1, held: 1, failed: 0 });
    expect((await heldSince()).map((held) => held.violations.map((violation) => violation.reason))).toEqual([['amount_mismatch']]);
    const cursors = await pool.query<{ name: string }>('SELECT name FROM "pixhook_reconcile_cursor"');
    expect(cursors.rows).toHaveLength(1);

    // From the start again, under a cursor of its own: applied → duplicate, held → held; nothing runs twice.
    const again = await runCli([...args, ...window, '--prefix', 'again'], { env, killAfterMs: 60_000 });
    expect(again.code).toBe(0);
    expect(again.stderr).not.toMatch(/handled \S+ reconcile/);
    expect(jsonLines(again.stdout).find((line) => line['type'] === 'summary')).toMatchObject({ recovered: 0, held: 1, duplicates: 1 });
    expect((await pool.query('SELECT name FROM "again_reconcile_cursor"')).rows).toHaveLength(1);
  }, 90_000);
});
