import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-process.js';
import { usePostgres } from './use-postgres.js';

const db = usePostgres();

describe('pixhook postgres schema', () => {
  it('prints DDL that a real server accepts, twice (idempotent), with --table and --schema', async () => {
    const result = await runCli(['postgres', 'schema', '--table', 'webhook_inbox', '--schema=billing']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('CREATE TABLE IF NOT EXISTS "billing"."webhook_inbox"');
    await db().pool.query(result.stdout);
    await db().pool.query(result.stdout);
    const { rows } = await db().pool.query(
      `SELECT indexname FROM pg_indexes WHERE schemaname = 'billing' AND tablename = 'webhook_inbox' ORDER BY 1`,
    );
    expect(rows.map((r: { indexname: string }) => r.indexname)).toEqual(['webhook_inbox_done_at', 'webhook_inbox_pkey']);
  });

  it('prints every table pixhook uses, not only the inbox; a fresh database made from it serves the book, journal, watch and cursor stores', async () => {
    // Issue 37: it printed the inbox's tables alone.
    const result = await runCli(['postgres', 'schema', '--schema', 'shop']);
    expect(result.code).toBe(0);
    await db().pool.query(result.stdout);
    await db().pool.query(result.stdout);
    const { rows } = await db().pool.query(
      `SELECT table_schema || '.' || table_name AS name FROM information_schema.tables WHERE table_name LIKE 'pixhook%' AND table_schema IN ('shop', 'public') ORDER BY 1`,
    );
    expect(rows.map((r: { name: string }) => r.name)).toEqual(
      expect.arrayContaining([
        'shop.pixhook_inbox',
        'shop.pixhook_book_resources',
        'shop.pixhook_book_held',
        'shop.pixhook_book_flags',
        'shop.pixhook_journal',
        'public.pixhook_watch',
        'public.pixhook_watch_reads',
        'public.pixhook_reconcile_cursor',
      ]),
    );
  });

  it('exits 2 on a usage error or a name that is not a plain identifier', async () => {
    expect((await runCli(['postgres'])).code).toBe(2);
    expect((await runCli(['postgres', 'schema', '--tabel', 'x'])).code).toBe(2);
    const bad = await runCli(['postgres', 'schema', '--table', 'x;drop']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('plain identifier');
  });
});
