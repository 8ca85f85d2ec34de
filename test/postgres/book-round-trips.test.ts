// Issue 36's bench goal on the Postgres book, checked on the statements sent (never on time): with the inbox a
// delivery's transaction takes the round trips of a bare one (BEGIN; INSERT; COMMIT): the book's first statement
// rides with BEGIN and answers the transactional handler's claim, the merchant's INSERT, then the book's write, the
// claim, the done mark and the COMMIT as one query. Without the inbox an apply is judged from one read (no
// transaction, no row written) and committed by one compare-and-set that creates the row.
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { PaymentBookBackend } from '../../src/book/joined-claim.js';
import { createReceiver, type PixEvent } from '../../src/index.js';
import {
  postgresInbox,
  postgresPaymentBook,
  transactionalOutcome,
  type PostgresInbox,
  type SqlDatabase,
} from '../../src/postgres/index.js';
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

async function withInbox(handle: pg.Pool | SqlDatabase, before?: (key: string, table: string) => Promise<void>) {
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
    inbox.transactional(async (event: PixEvent, { tx, key }) => {
      if (event.kind === 'transaction') await tx.query(`INSERT INTO ${table}_ledger (charge) VALUES ($1)`, [event.transaction.id]);
      if (key !== undefined) await before?.(key, table);
    }),
  );
  const ledger = async () =>
    (await db().pool.query(`SELECT charge FROM ${table}_ledger`)).rows.map((row: { charge: string }) => row.charge);
  return { receiver, book, ledger, table, bookTable, inbox };
}

/** The queries of the book's transaction for `id`: from its BEGIN to its COMMIT, on the client that sent them. */
function bookTransaction(id: string): string[] {
  const at = sent.findIndex((text) => text.startsWith('BEGIN ISOLATION LEVEL READ COMMITTED; ') && text.includes(`('t:${id}'`));
  const end = sent.findIndex((text, i) => i > at && senders[i] === senders[at] && /COMMIT$/.test(text));
  return sent.filter((_, i) => i >= at && i <= end && senders[i] === senders[at]);
}

/** `PREPARE name AS text` → name → text, from the queries sent. */
function preparedTexts(): Map<string, string> {
  const texts = new Map<string, string>();
  for (const query of sent) for (const [, name, text] of query.matchAll(/PREPARE (pixhook_\w+) AS ([^;]+)/g)) texts.set(name!, text!);
  return texts;
}
const executed = (query: string) => [...query.matchAll(/EXECUTE (pixhook_\w+)/g)].map(([, name]) => name!);

describe('postgres book with the inbox: a delivery takes the round trips of a bare transaction', () => {
  it('on a pg Pool: BEGIN and the book’s lock, the merchant’s INSERT, then the book’s write, the claim, the done mark and COMMIT as one query', async () => {
    // A pool of its own, so its connections start with nothing prepared, and two (the store's lock session, and one
    // for everything else): both deliveries' transactions run on the same connection.
    const pool = new pg.Pool({ connectionString: db().server.url, max: 2 });
    pool.on('error', () => {});
    const { receiver, book, ledger, table, bookTable } = await withInbox(pool);
    const [id, again] = [freshCharge('rides'), freshCharge('rides-again')];
    recordQueries();
    const answer = await receiver.receive(paidDelivery(id));
    const second = await receiver.receive(paidDelivery(again));
    pg.Client.prototype.query = query;
    expect([answer.status, answer.reason, second.status, second.reason]).toEqual([200, undefined, 200, undefined]);
    // The first time on a connection each statement is prepared in the query that first sends it.
    const texts = preparedTexts();
    const [first, insert, last, ...rest] = bookTransaction(id);
    expect(rest).toEqual([]);
    const [lock] = executed(first!).map((name) => texts.get(name)!);
    expect(lock).toContain(`INSERT INTO "${bookTable}_resources" AS r (key) VALUES ($1)`);
    // The first statement reads whether the handler's claim would find its key done: the claim needs no query of its own.
    expect(lock).toContain(`FROM "${table}" WHERE scope = 'effects'`);
    expect(insert).toBe(`INSERT INTO ${table}_ledger (charge) VALUES ($1)`);
    // The book's write, the claim and the done mark, then COMMIT: one statement (the claim and the mark as CTEs of the
    // write, the claim asserted in its WHERE; it answers no row), executed, prepared in the first query as one of the
    // first statement's companions, before it (its being found prepared proves they are).
    const companions = executed(last!);
    expect(companions).toHaveLength(1);
    const folded = texts.get(companions[0]!)!;
    // The claim as written when the first statement found no row for the key: a plain insert (DO NOTHING on a conflict).
    expect(folded).toMatch(new RegExp(`^WITH claimed AS \\(INSERT INTO "${table}" \\(scope, key, expires_at\\) VALUES \\(\\$4, \\$5,`));
    expect(folded).toContain('ON CONFLICT (scope, key) DO NOTHING RETURNING 1 AS claimed), marked AS');
    expect(folded).toContain(`marked AS (INSERT INTO "${table}" (scope, key, expires_at) VALUES ($7, $8,`);
    expect(folded).toMatch(
      new RegExp(
        `\\) UPDATE "${bookTable}_resources" SET state = \\$2, .* WHERE key = \\$1 AND 1 / \\(SELECT count\\(\\*\\)::int FROM claimed\\) = 1$`,
      ),
    );
    expect(folded).not.toContain('RETURNING 1 AS marked');
    expect(last).toMatch(/^EXECUTE pixhook_\w+\('t:.*; COMMIT$/);
    const preparedInFirst = [...first!.matchAll(/PREPARE (pixhook_\w+)/g)].map(([, name]) => name);
    expect(preparedInFirst).toContain(companions[0]);
    expect(preparedInFirst.at(-1)).toEqual(executed(first!)[0]);
    // The second delivery: the same three queries, nothing prepared again.
    const repeated = bookTransaction(again);
    expect(repeated).toHaveLength(3);
    expect(repeated[0]).not.toContain('PREPARE');
    expect(executed(repeated[0]!)).toEqual(executed(first!));
    expect(executed(repeated[2]!)).toEqual(companions);
    // Nothing else wrote the claim or the done mark: the two COMMIT queries execute them, nothing sends them inlined.
    expect(sent.filter((text) => companions.some((name) => text.includes(`EXECUTE ${name}(`)))).toEqual([last, repeated[2]]);
    expect(sent.filter((text) => !text.includes('PREPARE') && (text.includes(`"${table}" AS inbox`) || deliveryMark(table)(text)))).toEqual(
      [],
    );
    expect(await ledger()).toEqual([id, again]);
    expect((await book.get(id))?.status).toBe('paid');
    const { rows } = await db().pool.query(`SELECT scope FROM "${table}" WHERE key LIKE $1 ORDER BY scope`, [
      `transaction_paid:${id}:paid%`,
    ]);
    expect(rows.map((row: { scope: string }) => row.scope)).toEqual(['delivery', 'effects']);
    // The sender's retry is a duplicate; nothing ran twice.
    expect((await receiver.receive(paidDelivery(id))).reason).toBe('duplicate');
    expect(await ledger()).toEqual([id, again]);
    await receiver.close();
    await inboxes.pop()!.close();
    await pool.end();
  });

  it('a connection that lost its prepared statement (DEALLOCATE, a pooler): the BEGIN goes again inlined, and stays so', async () => {
    const pool = new pg.Pool({ connectionString: db().server.url, max: 2 });
    pool.on('error', () => {});
    const { receiver, ledger, bookTable } = await withInbox(pool);
    const [id, again, third] = [freshCharge('dealloc'), freshCharge('dealloc-again'), freshCharge('dealloc-third')];
    expect((await receiver.receive(paidDelivery(id))).status).toBe(200);
    // The one connection besides the store's lock session: the one the deliveries' transactions run on.
    const client = await pool.connect();
    await client.query('DEALLOCATE ALL');
    client.release();
    recordQueries();
    expect((await receiver.receive(paidDelivery(again))).status).toBe(200);
    expect((await receiver.receive(paidDelivery(third))).status).toBe(200);
    pg.Client.prototype.query = query;
    const begins = sent.filter((text) => text.startsWith('BEGIN ISOLATION LEVEL READ COMMITTED; '));
    const inline = `BEGIN ISOLATION LEVEL READ COMMITTED; INSERT INTO "${bookTable}_resources" AS r (key) VALUES ('t:`;
    expect(begins.map((text) => text.startsWith(inline))).toEqual([false, true, true]);
    expect(sent[sent.indexOf(begins[0]!) + 1]).toBe('ROLLBACK');
    expect(sent.join('\n')).not.toContain('PREPARE');
    expect(begins[0]).toMatch(/^BEGIN ISOLATION LEVEL READ COMMITTED; EXECUTE pixhook_/);
    expect(sent.slice(sent.indexOf(begins[0]!) + 1).join('\n')).not.toContain('EXECUTE pixhook_');
    expect(await ledger()).toEqual([id, again, third]);
    await receiver.close();
    await inboxes.pop()!.close();
    await pool.end();
  });

  it('another transaction marks the effects done while the handler runs: the commit fails, nothing commits, a retry is a duplicate', async () => {
    let calls = 0;
    const { receiver, book, ledger, inbox } = await withInbox(db().pool, async (key, table) => {
      // Outside the book's transaction (which has not written the claim yet), as a transactional handler elsewhere would.
      if (++calls === 1)
        await db().pool.query(`INSERT INTO "${table}" (scope, key, expires_at) VALUES ('effects', $1, now() + interval '1 hour')`, [key]);
    });
    const id = freshCharge('lost');
    // The handlers succeeded and their effects are done (by the other transaction): a mark that fails is logged.
    expect((await receiver.receive(paidDelivery(id))).status).toBe(200);
    // The claim was lost at the commit: the handler's INSERT rolled back with the book's write and the done mark.
    expect(await ledger()).toEqual([]);
    expect(await book.get(id)).toBeUndefined();
    // The claim was given back (nothing committed): not held until the process ends.
    expect(inbox.store.held).toBe(0);
    // A retry (the reconciler's, a replay's) finds the effects done from its first statement: the handler is
    // skipped, and the book's write commits with the done mark.
    const retry = await receiver.receive(paidDelivery(id));
    expect([retry.status, retry.reason]).toEqual([200, 'duplicate']);
    expect(calls).toBe(1);
    expect(await ledger()).toEqual([]);
    expect((await book.get(id))?.status).toBe('paid');
    await receiver.close();
  });

  it('an effects row whose TTL ran out: the first statement reads it expired, the COMMIT takes it over with the default claim', async () => {
    let key: string | undefined;
    let calls = 0;
    const { receiver, book, ledger, table } = await withInbox(db().pool, async (k) => {
      key = k;
      // The first run fails (nothing commits): the test learns the key, then leaves an expired row for it.
      if (++calls === 1) throw new Error('first run fails');
    });
    const id = freshCharge('expired');
    expect((await receiver.receive(paidDelivery(id))).status).toBe(500);
    await db().pool.query(
      `INSERT INTO "${table}" (scope, key, expires_at, done_at) VALUES ('effects', $1, now() - interval '1 minute', now() - interval '1 day')`,
      [key],
    );
    recordQueries();
    const retry = await receiver.receive(paidDelivery(id));
    pg.Client.prototype.query = query;
    expect([retry.status, retry.reason]).toEqual([200, undefined]);
    expect(calls).toBe(2);
    // The claim written is the handler's own, which takes over a row whose TTL ran out (a plain insert would claim
    // nothing: the commit would fail as `claim_lost`, the ledger stay empty and the row expired).
    const { rows } = await db().pool.query(`SELECT expires_at > now() AS live FROM "${table}" WHERE scope = 'effects' AND key = $1`, [key]);
    expect(rows).toEqual([{ live: true }]);
    expect(await ledger()).toEqual([id]);
    expect((await book.get(id))?.status).toBe('paid');
    expect((await receiver.receive(paidDelivery(id))).reason).toBe('duplicate');
    await receiver.close();
  });

  it('two transactional handlers on the default scope: the second finds the key taken by the first, as its claim would', async () => {
    const table = freshTable();
    const inbox = postgresInbox({ pool: db().pool, table });
    inboxes.push(inbox);
    await inbox.migrate();
    const book = postgresPaymentBook({ db: db().pool, inbox, table: freshTable('book') });
    await book.migrate();
    const ran: string[] = [];
    const outcomes: (string | undefined)[] = [];
    const receiver = createReceiver({ secret, book, store: inbox.store })
      .on(
        'transaction_paid',
        inbox.transactional(() => void ran.push('first')),
      )
      .on(
        'transaction_paid',
        inbox.transactional(() => void ran.push('second')),
      )
      .on('transaction_paid', (_event, context) => void outcomes.push(transactionalOutcome(context)));
    const id = freshCharge('twice');
    await receiver.receive(paidDelivery(id));
    expect(ran).toEqual(['first']);
    expect(outcomes).toEqual(['skipped']);
    expect((await book.get(id))?.status).toBe('paid');
    await receiver.close();
  });

  it('on another SqlDatabase the write, the claim and the mark are one statement before the COMMIT, in the same transaction', async () => {
    const { receiver, book, ledger, table, bookTable } = await withInbox(plainDatabase(db().pool));
    const id = freshCharge('plain');
    recordQueries();
    const answer = await receiver.receive(paidDelivery(id));
    pg.Client.prototype.query = query;
    expect([answer.status, answer.reason]).toEqual([200, undefined]);
    const write = sent.findIndex((text) => text.includes(`UPDATE "${bookTable}_resources" SET state`));
    expect(write).toBeGreaterThan(-1);
    // The claim (answered from the first statement's read) and the mark ride in the write, as its CTEs; then COMMIT.
    expect(sent[write]).toMatch(new RegExp(`^WITH claimed AS \\(INSERT INTO "${table}" \\(scope, key, expires_at\\)`));
    expect(sent[write]).toContain(`marked AS (INSERT INTO "${table}" (scope, key, expires_at)`);
    expect(nextOnSameClient(sent[write]!)).toBe('COMMIT');
    // No other statement claims or marks the key.
    const claimsOrMarks = sent.filter(
      (text) => text.includes(`INSERT INTO "${table}" (scope, key, expires_at)`) || text.includes('AS inbox'),
    );
    expect(claimsOrMarks).toEqual([sent[write]]);
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
