// The payment book's transaction kept open for the event's handlers (src/postgres/shared-transactions.ts) on both
// of its paths: on a pg Pool it is begun and ended directly (pg-database.ts `beginKept`/`endKept`: no callback waits
// across the handlers); on a connected pg Client (or any other handle) a transaction callback waits for its end. Each
// path commits the book, the handler's write and the claim together, rolls them back together when the handler
// fails, commits at once what it does not keep, and gives its connection back when the book's own step fails.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createProcessing, type HandlerContext, type PixEvent } from '../../src/index.js';
import { postgresInbox, postgresPaymentBook, type PostgresInbox } from '../../src/postgres/index.js';
import { inboxLink } from '../../src/postgres/postgres-inbox.js';
import { freshCharge } from '../book/applied-on-success-scenarios.js';
import { chargeEvent } from '../book/book-events.js';
import { freshTable, usePostgres } from './use-postgres.js';

const db = usePostgres();
const inboxes: PostgresInbox[] = [];
const clients: pg.Client[] = [];
const pools: pg.Pool[] = [];
afterAll(async () => {
  await Promise.all(inboxes.map((inbox) => inbox.close()));
  await Promise.all([...clients.map((client) => client.end()), ...pools.map((pool) => pool.end())]);
});

const paid = (id: string): PixEvent => chargeEvent('transaction_paid', { id, status: 'paid', amountInCents: 1000, endToEndId: `E${id}` });
const keyOf = (id: string) => `transaction_paid:${id}:paid`;
const contextOf = (key: string): HandlerContext => ({
  key,
  attempt: 1,
  mode: 'inline',
  source: 'webhook',
  signal: new AbortController().signal,
  markDuplicate() {},
});

/** The inbox and the book on `handle` (paired, as a processing pairs them), a ledger, and a handler writing it. */
async function setup(handle: pg.Pool | pg.Client) {
  const { pool } = db();
  const inbox = postgresInbox({ pool: handle, table: freshTable() });
  inboxes.push(inbox);
  const prefix = freshTable('book');
  const book = postgresPaymentBook({ db: handle, inbox, table: prefix });
  await inbox.migrate();
  await book.migrate();
  createProcessing({ store: inbox.store, book });
  const ledger = freshTable('ledger');
  await pool.query(`CREATE TABLE ${ledger} (charge text NOT NULL)`);
  let failing = false;
  const handler = inbox.transactional(async (event: PixEvent, { tx }) => {
    await tx.query(`INSERT INTO ${ledger} (charge) VALUES ($1)`, [event.kind === 'transaction' ? event.transaction.id : '']);
    if (failing) throw new Error('the handler failed after its write');
  });
  const resources = `"${prefix}_resources"`;
  const count = async (sql: string, id: string) => (await pool.query(sql, [id])).rowCount ?? 0;
  return {
    book,
    shared: inboxLink(inbox)!.shared,
    resources,
    handle: (id: string) => handler(paid(id), contextOf(keyOf(id))),
    failNext: (fail: boolean) => void (failing = fail),
    ledgerRows: (id: string) => count(`SELECT 1 FROM ${ledger} WHERE charge = $1`, id),
    // Read on the fixture's own pool: a pg Client handle is busy with the kept transaction until it ends.
    bookRows: async (id: string) => {
      const { rows } = await pool.query<{ state: string | null }>(`SELECT state FROM "${prefix}_resources" WHERE key = $1`, [`t:${id}`]);
      const state = rows[0]?.state;
      return typeof state === 'string' ? (JSON.parse(state) as { timeline: unknown[] }).timeline.length : 0;
    },
  };
}

/** A pg Pool of at most `max` connections on the test server. */
function smallPool(max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: db().server.url, max });
  pool.on('error', () => {});
  pools.push(pool);
  return pool;
}

async function connectedClient(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: db().server.url });
  client.on('error', () => {});
  await client.connect();
  clients.push(client);
  return client;
}

describe.each([
  ['a pg Pool (begun and ended directly)', async () => smallPool(2)],
  ['a connected pg Client (a callback waits for the end)', connectedClient],
] as const)('the book transaction kept open for the handlers, on %s', (_name, handle) => {
  it('commits the book, the write and the claim together; a handler that fails rolls them all back; a duplicate commits at once', async () => {
    const { book, shared, handle: run, failNext, ledgerRows, bookRows } = await setup(await handle());
    const [kept, failed] = [freshCharge('kept'), freshCharge('failed')];
    const record = async (id: string) => {
      expect((await book.record(paid(id), { dedupeKey: keyOf(id) })).outcome).toBe('apply');
      // Kept open: nothing of it is visible outside the transaction before the commit.
      expect(shared.take(keyOf(id))).toBeDefined();
      expect(await bookRows(id)).toBe(0);
    };
    // kept: the handler writes, the settle commits everything.
    await record(kept);
    await run(kept);
    expect(await shared.settle(keyOf(kept), true)).toBe(true);
    expect([await ledgerRows(kept), await bookRows(kept)]).toEqual([1, 1]);
    // failed: the handler writes, then throws: the book's transaction is rolled back with its write.
    await record(failed);
    failNext(true);
    await expect(run(failed)).rejects.toThrow('the handler failed after its write');
    failNext(false);
    expect(shared.take(keyOf(failed))).toBeUndefined();
    expect([await ledgerRows(failed), await bookRows(failed)]).toEqual([0, 0]);
    // The same fact again: the book answers duplicate, and its transaction is not kept: it ended at once, so the
    // connection is free for the next delivery (on a Client, a transaction left open would hold it forever).
    expect((await book.record(paid(kept), { dedupeKey: `${keyOf(kept)}:again` })).outcome).toBe('duplicate');
    expect(shared.take(`${keyOf(kept)}:again`)).toBeUndefined();
    const next = freshCharge('next');
    await record(next);
    await run(next);
    expect(await shared.settle(keyOf(next), true)).toBe(true);
    expect([await ledgerRows(kept), await bookRows(kept), await ledgerRows(next), await bookRows(next)]).toEqual([1, 1, 1, 1]);
  });
});

describe('on a pg Pool, a book step that fails before anything is kept', () => {
  it('a first statement that fails, or a judgement that throws, is rolled back and its connection given back', async () => {
    const pool = smallPool(2);
    const { book, resources, shared, handle: run } = await setup(pool);
    const { pool: other } = db();
    // The judgement throws: the stored state is not JSON. Three times on a pool of two: a connection kept by a failed
    // step would leave the third waiting forever.
    const broken = freshCharge('broken');
    await other.query(`INSERT INTO ${resources} (key, state) VALUES ($1, 'not json')`, [`t:${broken}`]);
    for (let i = 0; i < 3; i++)
      await expect(book.record(paid(broken), { dedupeKey: `${keyOf(broken)}:${i}` })).rejects.toThrow(SyntaxError);
    // Rolled back: the resource's row is not locked by anyone.
    await expect(other.query(`SELECT 1 FROM ${resources} WHERE key = $1 FOR UPDATE NOWAIT`, [`t:${broken}`])).resolves.toBeDefined();
    expect(shared.take(`${keyOf(broken)}:0`)).toBeUndefined();
    // The first statement fails (its table is gone): the same, three times.
    await other.query(`ALTER TABLE ${resources} RENAME TO gone_${process.pid}`);
    const missing = freshCharge('missing');
    for (let i = 0; i < 3; i++)
      await expect(book.record(paid(missing), { dedupeKey: `${keyOf(missing)}:${i}` })).rejects.toThrow(/does not exist/);
    await other.query(`ALTER TABLE gone_${process.pid} RENAME TO ${resources.replaceAll('"', '')}`);
    // Both connections came back, still usable: a delivery on each, at once.
    const [a, b] = [freshCharge('a'), freshCharge('b')];
    await Promise.all([a, b].map((id) => book.record(paid(id), { dedupeKey: keyOf(id) })));
    await Promise.all([a, b].map((id) => run(id)));
    expect(await Promise.all([a, b].map((id) => shared.settle(keyOf(id), true)))).toEqual([true, true]);
  });
});
