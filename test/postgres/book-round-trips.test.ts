// Issue 36's bench goal on the Postgres book, checked on the statements sent (never on time): with the inbox the
// book's write rides in the same round trip as the transactional handler's claim; without it an apply is judged
// from one read (no transaction, no row written) and committed by one compare-and-set that creates the row.
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { PaymentBookBackend } from '../../src/book/joined-claim.js';
import { createReceiver, type PixEvent } from '../../src/index.js';
import { postgresInbox, postgresPaymentBook, type PostgresInbox, type SqlDatabase } from '../../src/postgres/index.js';
import { freshCharge, paidDelivery, secret } from '../book/applied-on-success-scenarios.js';
import { freshTable, usePostgres } from './use-postgres.js';

const db = usePostgres();
const inboxes: PostgresInbox[] = [];
afterAll(() => Promise.all(inboxes.map((inbox) => inbox.close())));

// Every query text a pg client sends (a pool's queries go through its clients), and the client that sent it.
const sent: string[] = [];
const senders: pg.Client[] = [];
const query = pg.Client.prototype.query;
function recordQueries(): void {
  sent.length = 0;
  senders.length = 0;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0];
    sent.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
    senders.push(this);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
}
/** What the client that sent `text` sent next. */
const nextOnSameClient = (text: string) => {
  const at = sent.indexOf(text);
  return sent.find((_, i) => i > at && senders[i] === senders[at]);
};
const deliveryMark = (table: string) => (text: string) =>
  text.startsWith(`INSERT INTO "${table}" (scope, key, expires_at) VALUES ($1, $2,`);
afterEach(() => {
  pg.Client.prototype.query = query;
});

/** The pool as a plain `SqlDatabase` (what an adapter gives): its client is not known to take several statements at once. */
function plainDatabase(pool: pg.Pool): SqlDatabase {
  return {
    query: (text, values) => pool.query(text, values),
    async transaction(isolation, fn) {
      const client = await pool.connect();
      try {
        await client.query(`BEGIN ISOLATION LEVEL ${isolation.toUpperCase()}`);
        const result = await fn(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      } finally {
        client.release();
      }
    },
    async session(fn) {
      const client = await pool.connect();
      try {
        return await fn(client, new Promise(() => {}));
      } finally {
        client.release();
      }
    },
  };
}

const paid = (id: string, amountInCents: number): PixEvent =>
  ({
    kind: 'transaction',
    name: 'transaction_paid',
    variant: 'b',
    source: 'webhook',
    warnings: [],
    payload: {},
    transaction: { id, status: 'paid', amountInCents, endToEndId: `E${id}` },
  }) as unknown as PixEvent;

async function withInbox(handle: pg.Pool | SqlDatabase) {
  const table = freshTable();
  const inbox = postgresInbox({ pool: handle, table });
  inboxes.push(inbox);
  await inbox.migrate();
  const bookTable = freshTable('book');
  const book = postgresPaymentBook({ db: handle, inbox, table: bookTable });
  await book.migrate();
  await db().pool.query(`CREATE TABLE ${table}_ledger (charge text NOT NULL)`);
  const receiver = createReceiver({ secret, book, store: inbox.store }).on(
    'transaction_paid',
    inbox.transactional(async (event: PixEvent, { tx }) => {
      if (event.kind === 'transaction') await tx.query(`INSERT INTO ${table}_ledger (charge) VALUES ($1)`, [event.transaction.id]);
    }),
  );
  const ledger = async () =>
    (await db().pool.query(`SELECT charge FROM ${table}_ledger`)).rows.map((row: { charge: string }) => row.charge);
  return { receiver, book, ledger, table, bookTable };
}

describe('postgres book with the inbox: the write rides with the claim', () => {
  it('on a pg Pool the book’s write and the handler’s claim go as one query; the ledger and the book commit together', async () => {
    const { receiver, book, ledger, table, bookTable } = await withInbox(db().pool);
    const id = freshCharge('rides');
    recordQueries();
    const answer = await receiver.receive(paidDelivery(id));
    pg.Client.prototype.query = query;
    expect([answer.status, answer.reason]).toEqual([200, undefined]);
    const writes = sent.filter((text) => text.includes(`UPDATE "${bookTable}_resources" SET state`));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toContain(`INSERT INTO "${table}" AS inbox`);
    // The delivery's done mark is the last statement of the book's transaction: one commit for all three.
    const marks = sent.filter(deliveryMark(table));
    expect(marks).toHaveLength(1);
    expect(nextOnSameClient(marks[0]!)).toBe('COMMIT');
    expect(await ledger()).toEqual([id]);
    expect((await book.get(id))?.status).toBe('paid');
    // The sender's retry is a duplicate; nothing ran twice.
    expect((await receiver.receive(paidDelivery(id))).reason).toBe('duplicate');
    expect(await ledger()).toEqual([id]);
    await receiver.close();
  });

  it('on another SqlDatabase the write is a statement of its own, still before the claim, in the same transaction', async () => {
    const { receiver, book, ledger, bookTable } = await withInbox(plainDatabase(db().pool));
    const id = freshCharge('plain');
    recordQueries();
    const answer = await receiver.receive(paidDelivery(id));
    pg.Client.prototype.query = query;
    expect([answer.status, answer.reason]).toEqual([200, undefined]);
    const write = sent.findIndex((text) => text.includes(`UPDATE "${bookTable}_resources" SET state`));
    expect(write).toBeGreaterThan(-1);
    expect(sent[write]).not.toContain('AS inbox');
    expect(sent[write + 1]).toContain('AS inbox');
    expect(await ledger()).toEqual([id]);
    expect((await book.get(id))?.status).toBe('paid');
    await receiver.close();
  });

  it('a handler that is not transactional: the write goes before the COMMIT', async () => {
    const inbox = postgresInbox({ pool: db().pool, table: freshTable() });
    inboxes.push(inbox);
    await inbox.migrate();
    const book = postgresPaymentBook({ db: db().pool, inbox, table: freshTable('book') });
    await book.migrate();
    const ran: string[] = [];
    const receiver = createReceiver({ secret, book, store: inbox.store }).on('transaction_paid', (event) => {
      if (event.kind === 'transaction') ran.push(event.transaction.id);
    });
    const id = freshCharge('plain-handler');
    expect((await receiver.receive(paidDelivery(id))).status).toBe(200);
    expect(ran).toEqual([id]);
    expect((await book.get(id))?.status).toBe('paid');
    await receiver.close();
  });
});

describe('postgres book without the inbox, the inbox’s store as the store: the apply and the done mark are one statement', () => {
  async function setup() {
    const table = freshTable();
    const inbox = postgresInbox({ pool: db().pool, table });
    inboxes.push(inbox);
    await inbox.migrate();
    const book = postgresPaymentBook({ db: db().pool, table: freshTable('book') }) as ReturnType<typeof postgresPaymentBook> &
      PaymentBookBackend;
    await book.migrate();
    return { inbox, book, table };
  }

  it('a delivery: one statement applies and marks; the claim ends; the retry is a duplicate', async () => {
    const { inbox, book, table } = await setup();
    const ran: string[] = [];
    const receiver = createReceiver({ secret, book, store: inbox.store }).on('transaction_paid', (event) => {
      if (event.kind === 'transaction') ran.push(event.transaction.id);
    });
    const id = freshCharge('folded');
    recordQueries();
    expect((await receiver.receive(paidDelivery(id))).status).toBe(200);
    pg.Client.prototype.query = query;
    const folded = sent.filter((text) => text.startsWith('WITH cas AS'));
    expect(folded).toHaveLength(1);
    expect(folded[0]).toContain(`INSERT INTO "${table}" AS inbox`);
    expect(sent.filter(deliveryMark(table))).toEqual([]);
    expect(inbox.store.held).toBe(0);
    expect((await book.get(id))?.status).toBe('paid');
    expect((await receiver.receive(paidDelivery(id))).reason).toBe('duplicate');
    expect(ran).toEqual([id]);
    await receiver.close();
  });

  it('the resource changed since the judgement: nothing is marked by the fold, the apply lands on the new state, the claim stays for its own mark', async () => {
    const { inbox, book, table } = await setup();
    const id = freshCharge('changed');
    const key = `transaction_paid:${id}:paid`;
    expect(await inbox.store.claim(key, 'o', 60_000)).toBe('claimed');
    const judged = await book.judge!(paid(id, 1000), { dedupeKey: key });
    // Another change of the charge lands between the judgement and the commit.
    await book.expect({ id, amountInCents: 1000 });
    const committed = await judged.commit!({ store: inbox.store, key, owner: 'o', ttlMs: 60_000, lease: undefined });
    expect(committed).toEqual({});
    expect(inbox.store.held).toBe(1);
    const { rows } = await db().pool.query(`SELECT 1 FROM ${table} WHERE scope = 'delivery' AND key = $1`, [key]);
    expect(rows).toEqual([]);
    expect((await book.get(id))?.status).toBe('paid');
    expect(await inbox.store.complete(key, 'o', 60_000)).toBe(true);
    expect(inbox.store.held).toBe(0);
  });
});

describe('postgres book without the inbox: an apply judged from one read', () => {
  it('judging an apply sends one SELECT and writes nothing; its commit creates the resource', async () => {
    const book = postgresPaymentBook({ db: db().pool, table: freshTable('book') }) as ReturnType<typeof postgresPaymentBook> &
      PaymentBookBackend;
    await book.migrate();
    const id = freshCharge('read');
    recordQueries();
    const judged = await book.judge!(paid(id, 1000), { dedupeKey: `transaction_paid:${id}:paid` });
    pg.Client.prototype.query = query;
    expect(judged.outcome).toBe('apply');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatch(/^SELECT /);
    expect(await book.get(id)).toBeUndefined();
    await judged.commit!({ store: undefined as never, key: `transaction_paid:${id}:paid`, owner: 'o', ttlMs: 60_000, lease: undefined });
    expect((await book.get(id))?.status).toBe('paid');
  });

  it('anything but an apply is judged again under the row lock, where a hold is written', async () => {
    const book = postgresPaymentBook({ db: db().pool, table: freshTable('book') }) as ReturnType<typeof postgresPaymentBook> &
      PaymentBookBackend;
    await book.migrate();
    const id = freshCharge('hold');
    await book.expect({ id, amountInCents: 2590 });
    const judged = await book.judge!(paid(id, 100), { dedupeKey: `transaction_paid:${id}:paid` });
    expect(judged.outcome).toBe('held');
    expect(judged.commit).toBeUndefined();
    expect((await book.held()).map((held) => held.resourceId)).toEqual([id]);
  });
});
