import { spawn } from 'node:child_process';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresInbox } from '../../src/postgres/index.js';
import { runStoreConformance } from '../dedupe/store-conformance.js';
import { freshTable, usePostgres } from './use-postgres.js';

const db = usePostgres();

/** Polls `condition` until true; the cap only turns a hang into a failure. */
async function until(condition: () => boolean | Promise<boolean>, failure: string): Promise<void> {
  for (const startedAt = Date.now(); Date.now() - startedAt < 20_000; await new Promise((r) => setTimeout(r, 5))) {
    if (await condition()) return;
  }
  throw new Error(failure);
}

async function freshInbox(table = freshTable(), pool: pg.Pool = db().pool) {
  const inbox = postgresInbox({ pool, table });
  await inbox.migrate();
  return inbox;
}

describe('postgres dedupe store: the DedupeStore contract', () => {
  runStoreConformance(async () => (await freshInbox()).store);
});

describe('postgres dedupe store: claims are session locks, freed with the connection', () => {
  it('dedupes across two instances (two pools) with Postgres alone', async () => {
    const table = freshTable();
    const otherPool = new pg.Pool({ connectionString: db().server.url });
    const a = await freshInbox(table);
    const b = postgresInbox({ pool: otherPool, table });
    expect(await a.store.claim('k', 'a1', 60_000)).toBe('claimed');
    expect(await b.store.claim('k', 'b1', 60_000)).toBe('in_flight');
    expect(await b.store.complete('k', 'b1', 60_000)).toBe(false);
    expect(await a.store.complete('k', 'a1', 60_000)).toBe(true);
    expect(await b.store.claim('k', 'b2', 60_000)).toBe('done');
    // Racing instances: exactly one claim wins across both.
    const keys = Array.from({ length: 50 }, (_, i) => `race-${i}`);
    const results = await Promise.all(
      keys.flatMap((key) => [a.store.claim(key, `a-${key}`, 60_000), b.store.claim(key, `b-${key}`, 60_000)]),
    );
    for (let i = 0; i < keys.length; i++) expect([results[2 * i], results[2 * i + 1]].filter((r) => r === 'claimed')).toHaveLength(1);
    await a.close();
    await b.close();
    await otherPool.end();
  });

  it('a process killed with SIGKILL while holding a claim frees it at once (no TTL to wait out)', async () => {
    const table = freshTable();
    const inbox = await freshInbox(table);
    // A real second process: claims the key with a 10-minute TTL, says so, then hangs.
    const script = `
      import pg from 'pg';
      import { postgresInbox } from 'pixhook/postgres';
      const pool = new pg.Pool({ connectionString: process.env.PG_URL });
      const inbox = postgresInbox({ pool, table: process.env.TABLE });
      const result = await inbox.store.claim('held-by-child', 'child', 600000);
      process.stdout.write(result + '\\n');
      setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: process.cwd(),
      env: { ...process.env, PG_URL: db().server.url, TABLE: table },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const said = await new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (c: Buffer) => resolve(c.toString().trim()));
      child.once('exit', () => reject(new Error(`child exited: ${stderr}`)));
    });
    expect(said).toBe('claimed');
    expect(await inbox.store.claim('held-by-child', 'parent', 60_000)).toBe('in_flight');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    // The server notices the closed socket and drops its locks; poll until it has (the cap is only a
    // guard against a hang, far below the 10-minute TTL the child's claim had).
    const startedAt = Date.now();
    let result = await inbox.store.claim('held-by-child', 'parent', 60_000);
    while (result !== 'claimed' && Date.now() - startedAt < 20_000) {
      await new Promise((r) => setTimeout(r, 20));
      result = await inbox.store.claim('held-by-child', 'parent', 60_000);
    }
    expect(result).toBe('claimed');
    console.info(`claim free again ${Date.now() - startedAt} ms after the SIGKILLed holder exited (its TTL: 600 000 ms)`);
    await inbox.close();
  }, 30_000);

  it('a Postgres restart drops every claim: extend says lost, and the key can be claimed again', async () => {
    const inbox = await freshInbox();
    expect(await inbox.store.claim('k', 'before', 60_000)).toBe('claimed');
    expect(await inbox.store.extend('k', 'before', 60_000)).toBe(true);
    await db().server.crash();
    await db().server.start();
    // The event: the store learns its lock connection is gone, and drops the claims that lived on it.
    await until(() => inbox.store.held === 0, 'the store never noticed its lock connection was gone');
    expect(await inbox.store.extend('k', 'before', 60_000)).toBe(false);
    expect(await inbox.store.claim('k', 'after', 60_000)).toBe('claimed');
    expect(await inbox.store.complete('k', 'after', 60_000)).toBe(true);
    expect(await inbox.store.claim('k', 'again', 60_000)).toBe('done');
    await inbox.close();
  }, 30_000);

  it('answers with an error (never a wrong claim) while Postgres is down, and recovers by itself', async () => {
    const inbox = await freshInbox();
    expect(await inbox.store.claim('a', 'o', 60_000)).toBe('claimed');
    await db().server.stop();
    await expect(Promise.resolve(inbox.store.claim('b', 'o', 60_000))).rejects.toThrow();
    await db().server.start();
    expect(await inbox.store.claim('b', 'o2', 60_000)).toBe('claimed');
    expect(await inbox.store.claim('a', 'o2', 60_000)).toBe('claimed');
    await inbox.close();
  }, 30_000);

  it('close() hands back every claim', async () => {
    const table = freshTable();
    const a = await freshInbox(table);
    const b = postgresInbox({ pool: db().pool, table });
    expect(await a.store.claim('k', 'a', 60_000)).toBe('claimed');
    await a.close();
    expect(await b.store.claim('k', 'b', 60_000)).toBe('claimed');
    await b.close();
  });
});

describe('postgres dedupe store: a finished key is done however many claims arrive at once (issue 20)', () => {
  it('concurrent claims of a finished key in one process are all done, none in_flight', async () => {
    const inbox = await freshInbox();
    expect(await inbox.store.claim('k', 'first', 60_000)).toBe('claimed');
    expect(await inbox.store.complete('k', 'first', 60_000)).toBe(true);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => inbox.store.claim('k', `retry-${i}`, 60_000)));
    expect(results).toEqual(Array.from({ length: 20 }, () => 'done'));
    expect(inbox.store.held).toBe(0);
    await inbox.close();
  });

  it('a claim while complete() is still committing the mark is in_flight, never a second claim on our own re-entrant lock', async () => {
    const table = freshTable();
    const inbox = await freshInbox(table);
    expect(await inbox.store.claim('k', 'runner', 60_000)).toBe('claimed');
    // Another transaction holds the key's row uncommitted, so the mark's INSERT waits on it.
    const blocker = await db().pool.connect();
    await blocker.query('BEGIN');
    await blocker.query(`INSERT INTO ${table} (scope, key, expires_at) VALUES ('delivery', 'k', now() + interval '1 hour')`);
    const completing = inbox.store.complete('k', 'runner', 60_000);
    await until(async () => {
      const { rows } = await db().pool.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'`);
      return (rows[0] as { n: number }).n > 0;
    }, 'the mark never waited on the blocker’s row');
    // The run has finished but its mark is not committed: the key is in flight, not free.
    expect(await inbox.store.claim('k', 'retry', 60_000)).toBe('in_flight');
    // A release meanwhile must not free the lock before the mark commits: another instance still sees it in flight.
    await inbox.store.release('k', 'runner');
    const other = postgresInbox({ pool: db().pool, table });
    expect(await other.store.claim('k', 'elsewhere', 60_000)).toBe('in_flight');
    await blocker.query('ROLLBACK');
    blocker.release();
    expect(await completing).toBe(true);
    expect(await inbox.store.claim('k', 'later', 60_000)).toBe('done');
    expect(await other.store.claim('k', 'elsewhere-later', 60_000)).toBe('done');
    expect(inbox.store.held).toBe(0);
    await inbox.close();
    await other.close();
  });
});
