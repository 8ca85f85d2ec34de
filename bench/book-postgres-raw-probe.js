// The Postgres payment book's delivery (an `inbox.transactional` handler inside the book's transaction, as
// `bench/book.js` times it) against the same statements sent raw on the same `pg` Pool: the first query (BEGIN, the
// book's lock and reads, prepared), the handler's INSERT, then the book's write with the claim folded in and COMMIT.
// What the raw subject does not do is pixhook's own work around the statements (the book's step, the JSON, the open
// transaction's bookkeeping, the handler's wrapper): raw ÷ bare is the floor of these statements on this server, and
// the book ÷ raw is what the library adds. Alternating rounds in one process, beside the bare `BEGIN; INSERT;
// COMMIT`; per delivery: the wall clock, this process's CPU, the server's CPU and the WAL. Linux only (reads /proc).
//
//   npm run build && node bench/book-postgres-raw-probe.js [--quick]
//   PROBE_ROUNDS (14), PROBE_DELIVERIES (400 a round), PROBE_BUILDS=.,/tmp/old   the books of these builds (their dist/)
//   PROBE_PHASES=1   also each delivery's phases (medians, µs): from its start to its first query, each query's round
//                    trip, and the gaps between (this process's work between a reply and the next query), as `phases`
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { paidEvent } from './lib/book-deliveries.js';
import { bareTransaction, bookedDelivery, createLedger, insertLedger } from './lib/ledger.js';
import { quick } from './lib/stats.js';
import { alternatingRounds, loadAverage, roundFigures } from './lib/server-rounds.js';
import { startPostgresServer } from './postgres-server.js';

const rounds = quick ? 2 : Number(process.env.PROBE_ROUNDS ?? 14);
const perRound = quick ? 50 : Number(process.env.PROBE_DELIVERIES ?? 400);
const builds = (process.env.PROBE_BUILDS ?? '.').split(',');

const clientQuery = pg.Client.prototype.query;
/**
 * Each subject's deliveries traced (`rounds` alternating rounds): when each query is sent and answered. Per subject, the
 * median of each gap: start → 1st query sent, its round trip, answer → 2nd sent, … , last answer → the delivery's end.
 */
async function phasesOf(subjects, names) {
  let marks;
  pg.Client.prototype.query = function (...args) {
    const sent = clientQuery.apply(this, args);
    if (marks !== undefined) {
      marks.push(process.hrtime.bigint());
      sent?.then?.(
        () => marks?.push(process.hrtime.bigint()),
        () => {},
      );
    }
    return sent;
  };
  const gaps = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const name of names) {
      for (let i = 0; i < perRound; i++) {
        marks = [process.hrtime.bigint()];
        await subjects[name]();
        const at = [...marks, process.hrtime.bigint()];
        marks = undefined;
        gaps[name].push(at.slice(1).map((t, k) => Number(t - at[k]) / 1000));
      }
    }
  }
  pg.Client.prototype.query = clientQuery;
  const median = (values) => values.sort((a, b) => a - b)[values.length >> 1];
  return Object.fromEntries(names.map((name) => [name, gaps[name][0].map((_, k) => Math.round(median(gaps[name].map((g) => g[k] ?? 0))))]));
}

const server = await startPostgresServer({ fsync: true });
const pool = new pg.Pool({ connectionString: server.url, max: 4 });
const inboxes = [];
try {
  await createLedger(pool);
  let n = 0;
  const signal = new AbortController().signal;
  const subjects = { bare: () => bareTransaction(pool, ++n) };
  for (const [j, root] of builds.entries()) {
    const dist = (path) => import(pathToFileURL(join(resolve(root), 'dist', path)).href);
    const { createProcessing } = await dist('src/index.js');
    const { postgresInbox, postgresPaymentBook } = await dist('src/postgres/index.js');
    const { inboxLink } = await dist('src/postgres/postgres-inbox.js');
    const inbox = postgresInbox({ pool, table: `probe_inbox_${j}` });
    inboxes.push(inbox);
    const book = postgresPaymentBook({ db: pool, inbox, table: `probe_book_${j}` });
    await inbox.migrate();
    await book.migrate();
    createProcessing({ store: inbox.store, book });
    const { shared } = inboxLink(inbox);
    const handler = inbox.transactional(async (_event, { key, tx }) => insertLedger(tx, key, n));
    subjects[`book (${root})`] = () => {
      const i = ++n;
      return bookedDelivery({ book, handler, shared, signal }, paidEvent(`b${j}_${i}`), `transaction_paid:b${j}_${i}:paid`);
    };
  }

  // The book's tables (book-schema.ts, inbox-schema.ts) and its statements (book-statements.ts, commit-statement.ts).
  await pool.query(`CREATE TABLE raw_inbox (scope text NOT NULL, key text NOT NULL, done_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL, PRIMARY KEY (scope, key)); CREATE INDEX raw_inbox_done_at ON raw_inbox (done_at);
    CREATE TABLE raw_res (key text PRIMARY KEY, state text, has_disputes boolean NOT NULL DEFAULT false,
      updated_at timestamptz NOT NULL DEFAULT now()); CREATE INDEX raw_res_disputed ON raw_res (key) WHERE has_disputes;
    CREATE TABLE raw_held (seq bigserial PRIMARY KEY, held_id text NOT NULL UNIQUE, resource_key text NOT NULL,
      dedupe_key text NOT NULL, state text NOT NULL, owner text, lease_until bigint, data text NOT NULL, closed_at timestamptz);
    CREATE UNIQUE INDEX raw_held_open ON raw_held (resource_key, dedupe_key) WHERE state IN ('held', 'releasing');
    CREATE TABLE raw_flags (name text PRIMARY KEY, value text NOT NULL)`);
  const lock = `INSERT INTO raw_res AS r (key) VALUES ($1) ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key
    RETURNING r.state, EXISTS (SELECT 1 FROM raw_flags WHERE name = 'expecting') AS expecting,
    (SELECT data FROM raw_held WHERE resource_key = $1 AND dedupe_key = $2 AND state IN ('held', 'releasing')) AS open_held,
    (SELECT expires_at > now() FROM raw_inbox WHERE scope = 'effects' AND key = $2) AS claim_done`;
  const settle = `WITH claimed AS (INSERT INTO raw_inbox (scope, key, expires_at) VALUES ($4, $5, now() + $6::double precision * interval '1 millisecond')
    ON CONFLICT (scope, key) DO NOTHING RETURNING 1 AS claimed)
    UPDATE raw_res SET state = $2, has_disputes = $3, updated_at = now() WHERE key = $1 AND 1 / (SELECT count(*)::int FROM claimed) = 1`;
  const prepared = new WeakSet();
  const literal = (value) => `'${value.replace(/'/g, "''")}'`;
  subjects.raw = async () => {
    const i = ++n;
    const [rk, key] = [`t:raw_${i}`, `transaction_paid:raw_${i}:paid`];
    const client = await pool.connect();
    try {
      if (!prepared.has(client)) {
        await client.query(`PREPARE raw_lock AS ${lock}; PREPARE raw_settle AS ${settle}`);
        prepared.add(client);
      }
      const [, read] = await client.query(`BEGIN ISOLATION LEVEL READ COMMITTED; EXECUTE raw_lock(${literal(rk)}, ${literal(key)})`);
      if (read.rows[0].claim_done !== null) throw new Error(`${key}: found claimed`);
      const at = new Date().toISOString();
      const state = JSON.stringify({
        id: `raw_${i}`,
        kind: 'transaction',
        status: 'paid',
        amountInCents: 1000,
        timeline: [
          { name: 'transaction_paid', status: 'paid', amountInCents: 1000, channel: 'webhook', at, outcome: 'apply', reasons: [] },
        ],
        payments: [{ amountInCents: 1000, endToEndId: `Eraw_${i}` }],
        disputes: [],
      });
      await insertLedger(client, key, i);
      await client.query(`EXECUTE raw_settle(${literal(rk)}, ${literal(state)}, false, 'effects', ${literal(key)}, 86400000); COMMIT`);
    } finally {
      client.release();
    }
  };

  const names = Object.keys(subjects);
  for (const name of names) for (let i = 0; i < perRound; i++) await subjects[name]();
  const query = (text, values) => pool.query(text, values);
  const samples = await alternatingRounds({ subjects, names, rounds, perRound, postmaster: server.postmaster, query });
  const result = { rounds, deliveries_per_round: perRound, load: await loadAverage() };
  for (const name of names) result[name] = roundFigures(samples, name);
  if (process.env.PROBE_PHASES === '1') result.phases = await phasesOf(subjects, names);
  console.log(JSON.stringify(result));
} finally {
  pg.Client.prototype.query = clientQuery;
  for (const inbox of inboxes) await inbox.close();
  await pool.end();
  await server.stop();
}
