// The book's COMMIT statements (its write, the handler's claim, the done mark) go prepared only as companions of the
// transaction's first statement: prepared with it, in its query, before it, under names of that group alone. Behind a
// pooler in transaction mode (each transaction on whichever server session is free, kept on it until it ends), a
// first statement found prepared on the session proves its companions are there too, so a COMMIT never finds one
// missing after the handler ran. Here a "pooler" routes each transaction of two pixhook instances to the server
// session the test names.
import { EventEmitter } from 'node:events';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createReceiver, type PixEvent } from '../../src/index.js';
import { postgresInbox, postgresPaymentBook, type PostgresInbox } from '../../src/postgres/index.js';
import { freshCharge, paidDelivery, secret } from '../book/applied-on-success-scenarios.js';
import { freshTable, usePostgres } from './use-postgres.js';

const db = usePostgres();
const closing: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closing.reverse()) await close();
});

interface Sent {
  client: string;
  session: number;
  text: string;
  failed?: string;
}

/** A pg-Client-like handle of a transaction pooler: each BEGIN goes to the next session of `route`, and stays there until it ends. */
function pooled(name: string, sessions: pg.Client[], route: number[], sent: Sent[]) {
  let pinned: number | undefined;
  return Object.assign(new EventEmitter(), {
    async query(text: string, values?: unknown[]) {
      if (pinned === undefined && text.startsWith('BEGIN')) pinned = route.shift();
      if (pinned === undefined) throw new Error(`no session routed for ${text.slice(0, 40)}`);
      const session = pinned;
      const entry: Sent = { client: name, session, text };
      sent.push(entry);
      try {
        const result = await sessions[session]!.query(text, values);
        if (/(^|; )COMMIT$/.test(text)) pinned = undefined;
        return result;
      } catch (error) {
        entry.failed = (error as { code?: string }).code ?? String(error);
        throw error;
      } finally {
        if (text === 'ROLLBACK') pinned = undefined;
      }
    },
  });
}

async function sessions(count: number): Promise<pg.Client[]> {
  const clients = await Promise.all(
    Array.from({ length: count }, async () => {
      const client = new pg.Client({ connectionString: db().server.url });
      await client.connect();
      closing.push(() => client.end());
      return client;
    }),
  );
  return clients;
}

async function instances(route: number[], sent: Sent[], servers: pg.Client[]) {
  const table = freshTable();
  const bookTable = freshTable('book');
  await db().pool.query(`CREATE TABLE ${table}_ledger (charge text NOT NULL)`);
  const make = async (name: string) => {
    // The store's claims are session locks: they stay on the real pool; the book's transactions go through the pooler.
    const inbox: PostgresInbox = postgresInbox({ pool: db().pool, table });
    closing.push(() => inbox.close());
    await inbox.migrate();
    const book = postgresPaymentBook({ db: pooled(name, servers, route, sent), inbox, table: bookTable });
    if (name === 'one') await book.migrate();
    const receiver = createReceiver({ secret, book, store: inbox.store }).on(
      'transaction_paid',
      inbox.transactional(async (event: PixEvent, { tx }) => {
        if (event.kind === 'transaction') await tx.query(`INSERT INTO ${table}_ledger (charge) VALUES ($1)`, [event.transaction.id]);
      }),
    );
    closing.push(() => receiver.close());
    return receiver;
  };
  const ledger = async () =>
    (await db().pool.query(`SELECT charge FROM ${table}_ledger`)).rows.map((row: { charge: string }) => row.charge);
  return { one: await make('one'), two: await make('two'), ledger };
}

/** The book's resources table, from the first statement prepared. */
const bookTableOf = (sent: Sent[]) => /INSERT INTO ("\w+_resources")/.exec(sent.map((entry) => entry.text).join('\n'))![1]!;

const commits = (sent: Sent[]) => sent.filter((entry) => / COMMIT$/.test(entry.text));

describe('the COMMIT statements go prepared only where the first statement proves them', () => {
  it('a session prepared by another instance: the first statement found there proves its companions, the COMMIT executes them', async () => {
    const sent: Sent[] = [];
    const servers = await sessions(2);
    // one's migrate; then deliveries: one → session 0, two → session 1, one → session 1 (prepared there by two).
    const route = [0, 0, 1, 1];
    const { one, two, ledger } = await instances(route, sent, servers);
    const ids = [freshCharge('a'), freshCharge('b'), freshCharge('c')];
    expect((await one.receive(paidDelivery(ids[0]!))).status).toBe(200);
    expect((await two.receive(paidDelivery(ids[1]!))).status).toBe(200);
    sent.length = 0;
    expect((await one.receive(paidDelivery(ids[2]!))).status).toBe(200);
    // Instance one had prepared its group on session 0 only; on session 1 it finds the group two prepared.
    expect(sent.map((entry) => [entry.client, entry.session, entry.failed])).toEqual([
      ['one', 1, undefined],
      ['one', 1, undefined],
      ['one', 1, undefined],
    ]);
    expect(sent[0]!.text).not.toContain('PREPARE');
    // The book's write, the claim and the done mark: one statement (commit-statement.ts), executed, then COMMIT.
    expect(commits(sent)[0]!.text).toMatch(/^EXECUTE pixhook_\w+\('[^;]*; COMMIT$/);
    expect(await ledger()).toEqual(ids);
  });

  it('values with quotes and backslashes go into the executed statements as they are', async () => {
    const sent: Sent[] = [];
    const servers = await sessions(1);
    const { one, ledger } = await instances([0, 0, 0], sent, servers);
    const ids = [`it's-${freshCharge('odd')}`, `back\\slash'; DROP TABLE x; --${freshCharge('odd')}`];
    for (const id of ids) expect((await one.receive(paidDelivery(id))).status).toBe(200);
    // The second went prepared all through: its first statement and its COMMIT's three executed.
    expect(commits(sent)[1]!.text).toMatch(/^EXECUTE pixhook_\w+\( E'.*; COMMIT$/);
    expect(await ledger()).toEqual(ids);
    const { rows } = await db().pool.query(`SELECT state::jsonb ->> 'id' AS id FROM ${bookTableOf(sent)} ORDER BY id`);
    expect(rows.map((row: { id: string }) => row.id).sort()).toEqual([...ids].sort());
  });

  it('a session without the group: the BEGIN fails before the handler runs, goes again inlined, and so does its COMMIT', async () => {
    const sent: Sent[] = [];
    const servers = await sessions(2);
    // one's migrate; then one → session 0 (prepares), one → session 1 (nothing there: 26000), its ROLLBACK, again inlined.
    const route = [0, 0, 1, 1];
    const { one, ledger } = await instances(route, sent, servers);
    const ids = [freshCharge('d'), freshCharge('e')];
    expect((await one.receive(paidDelivery(ids[0]!))).status).toBe(200);
    sent.length = 0;
    expect((await one.receive(paidDelivery(ids[1]!))).status).toBe(200);
    expect(sent.map((entry) => [entry.session, entry.failed])).toEqual([
      [1, '26000'],
      [1, undefined],
      [1, undefined],
      [1, undefined],
      [1, undefined],
    ]);
    expect(sent[1]!.text).toBe('ROLLBACK');
    // Nothing failed once the handler had run: the COMMIT went inlined.
    expect(commits(sent)).toHaveLength(1);
    expect(commits(sent)[0]!.text).not.toContain('EXECUTE');
    expect(await ledger()).toEqual(ids);
  });
});
