// A probe of the Postgres book's lock (issue 36), in plain SQL on one `pg` Client, outside pixhook: the statements the
// book sends for an `inbox.transactional` handler's delivery, with today's lock (the resource's row: an
// `INSERT … ON CONFLICT DO UPDATE` that creates a placeholder row or writes a new version of an existing one, then the
// apply's `UPDATE`) against a transaction-level advisory lock on the resource's key (the lock, then the read in a
// statement of its own, then one write of the final row). Both with the same reads (the `expecting` flag, an open
// hold, the handler's claim) and the same claim at the COMMIT, beside the bare `BEGIN; INSERT; COMMIT`.
//
// The advisory lock needs a statement of its own before the read: under READ COMMITTED a statement's snapshot is
// taken when it starts, so a read in the statement that waited for the lock would not see what the previous holder
// committed. Here the lock statement is prepared (`prepared lock`) or sent inlined (`inlined lock`).
//
// Each subject runs on new resources (one per delivery, as `bench/book.js`) and on existing ones (a later event of a
// charge whose row holds its state). Alternating rounds in one process; per delivery: the wall clock, this
// process's CPU, the server's CPU (every PostgreSQL process, from /proc, in 10 ms ticks) and the WAL.
//
//   node bench/book-postgres-lock-probe.js [--quick]      PROBE_ROUNDS (8), PROBE_DELIVERIES (400 a round)
//   PROBE_STATEMENTS=1 node bench/book-postgres-lock-probe.js   also each statement's execution time and WAL (pg_stat_statements)
import pg from 'pg';
import { quick } from './lib/stats.js';
import { alternatingRounds, loadAverage, roundFigures } from './lib/server-rounds.js';
import { startPostgresServer } from './postgres-server.js';

const rounds = quick ? 2 : Number(process.env.PROBE_ROUNDS ?? 8);
const perRound = quick ? 50 : Number(process.env.PROBE_DELIVERIES ?? 400);

const statements = process.env.PROBE_STATEMENTS === '1';
const server = await startPostgresServer({
  fsync: true,
  settings: statements ? ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all'] : [],
});
const client = new pg.Client({ connectionString: server.url });
await client.connect();
try {
  if (statements) await client.query('CREATE EXTENSION pg_stat_statements');
  await client.query(`CREATE TABLE inbox (scope text NOT NULL, key text NOT NULL, done_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL, PRIMARY KEY (scope, key)); CREATE INDEX inbox_done_at ON inbox (done_at);
    CREATE TABLE ledger (event_key text NOT NULL, tx_id text NOT NULL, amount_in_cents integer NOT NULL)`);
  const claim = `INSERT INTO inbox AS inbox (scope, key, expires_at) VALUES ($1, $2, now() + $3::double precision * interval '1 millisecond')
    ON CONFLICT (scope, key) DO UPDATE SET done_at = now(), expires_at = EXCLUDED.expires_at WHERE inbox.expires_at <= now() RETURNING 1 AS claimed`;
  await client.query(`PREPARE claim AS WITH claimed AS (${claim}) SELECT 1 / (SELECT count(*)::int FROM claimed) AS claimed`);
  // The book's tables (book-schema.ts), one set per lock, and its statements (book-statements.ts).
  for (const p of ['row', 'adv']) {
    await client.query(`CREATE TABLE ${p}_res (key text PRIMARY KEY, state text, has_disputes boolean NOT NULL DEFAULT false,
      updated_at timestamptz NOT NULL DEFAULT now()); CREATE INDEX ${p}_disputed ON ${p}_res (key) WHERE has_disputes;
      CREATE TABLE ${p}_held (seq bigserial PRIMARY KEY, held_id text NOT NULL UNIQUE, resource_key text NOT NULL,
      dedupe_key text NOT NULL, state text NOT NULL, data text NOT NULL);
      CREATE UNIQUE INDEX ${p}_held_open ON ${p}_held (resource_key, dedupe_key) WHERE state IN ('held', 'releasing');
      CREATE TABLE ${p}_flags (name text PRIMARY KEY, value text NOT NULL)`);
  }
  const reads = (p) => `EXISTS (SELECT 1 FROM ${p}_flags WHERE name = 'expecting') AS expecting,
    (SELECT data FROM ${p}_held WHERE resource_key = $1 AND dedupe_key = $2 AND state IN ('held', 'releasing')) AS open_held,
    EXISTS (SELECT 1 FROM inbox WHERE scope = 'effects' AND key = $2 AND expires_at > now()) AS claim_done`;
  await client.query(`PREPARE row_lock AS INSERT INTO row_res AS r (key) VALUES ($1) ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key
    RETURNING r.state, ${reads('row')}`);
  await client.query(`PREPARE row_save AS UPDATE row_res SET state = $2, has_disputes = $3, updated_at = now() WHERE key = $1`);
  await client.query(`PREPARE adv_lock AS SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`);
  await client.query(`PREPARE adv_read AS SELECT (SELECT state FROM adv_res WHERE key = $1) AS state, ${reads('adv')}`);
  await client.query(`PREPARE adv_insert AS INSERT INTO adv_res (key, state, has_disputes) VALUES ($1, $2, $3)`);
  await client.query(`PREPARE adv_save AS UPDATE adv_res SET state = $2, has_disputes = $3, updated_at = now() WHERE key = $1`);

  const literal = (value) => `'${value.replace(/'/g, "''")}'`;
  const stateOf = (id, events) =>
    JSON.stringify({
      id,
      kind: 'transaction',
      timeline: Array.from({ length: events }, (_, i) => ({
        at: '2026-11-28T11:00:00.000Z',
        event: i === 0 ? 'transaction_created' : 'transaction_paid',
        deliveryId: `dlv_${id}_${i}`,
        outcome: 'apply',
        channel: 'webhook',
      })),
      payments: [{ amountInCents: 2590, endToEndId: `E12345678202611281100${id.padStart(11, '0')}`, at: '2026-11-28T11:00:00.000Z' }],
      disputes: [],
    });
  const ledger = (i) =>
    client.query('INSERT INTO ledger (event_key, tx_id, amount_in_cents) VALUES ($1, $2, $3)', [`k_${i}`, `tx_${i}`, 1000 + (i % 500)]);
  let n = 0;
  const warmup = perRound;
  const total = warmup + rounds * perRound;
  const delivery = (lock, write, existing) => async () => {
    const i = ++n;
    const rk = existing ? `t:old_${i}` : `t:ch_${i}`;
    const key = `transaction_paid:${rk}:paid`;
    const head = `BEGIN ISOLATION LEVEL READ COMMITTED; ${lock(rk, key)}`;
    const rows = (await client.query(head)).at(-1).rows;
    if (rows[0].claim_done || existing !== (rows[0].state !== null)) throw new Error(`${rk}: not the resource expected`);
    await ledger(i);
    const state = literal(stateOf(String(i), existing ? 2 : 1));
    await client.query(`${write(rk, state, rows[0].state !== null)}; EXECUTE claim('effects', ${literal(key)}, 86400000); COMMIT`);
  };
  const rowLock = (rk, key) => `EXECUTE row_lock(${literal(rk)}, ${literal(key)})`;
  const rowWrite = (rk, state) => `EXECUTE row_save(${literal(rk)}, ${state}, false)`;
  const advRead = (rk, key) => `EXECUTE adv_read(${literal(rk)}, ${literal(key)})`;
  const lockKey = (rk) => literal(`pixhook-book:.pixhook_book:${rk}`);
  const advPrepared = (rk, key) => `EXECUTE adv_lock(${lockKey(rk)}); ${advRead(rk, key)}`;
  const advInlined = (rk, key) => `SELECT pg_advisory_xact_lock(hashtextextended(${lockKey(rk)}, 0)); ${advRead(rk, key)}`;
  const advWrite = (rk, state, exists) => `EXECUTE ${exists ? 'adv_save' : 'adv_insert'}(${literal(rk)}, ${state}, false)`;
  const subjects = {
    bare: async () => {
      const i = ++n;
      await client.query('BEGIN');
      await ledger(i);
      await client.query('COMMIT');
    },
    'row lock, new': delivery(rowLock, rowWrite, false),
    'advisory (prepared), new': delivery(advPrepared, advWrite, false),
    'advisory (inlined), new': delivery(advInlined, advWrite, false),
    'row lock, existing': delivery(rowLock, rowWrite, true),
    'advisory (prepared), existing': delivery(advPrepared, advWrite, true),
  };
  const names = Object.keys(subjects);
  // The existing resources of the `existing` subjects: one per delivery number (a created charge).
  for (const p of ['row', 'adv']) {
    await client.query(`INSERT INTO ${p}_res (key, state) SELECT 't:old_' || i, $1 FROM generate_series(1, $2) AS i`, [
      stateOf('old', 1),
      names.length * total,
    ]);
  }
  await client.query('VACUUM ANALYZE row_res, adv_res'); // not the empty tables: a generic plan made on a table vacuumed empty scans it whole
  for (const name of names) for (let i = 0; i < warmup; i++) await subjects[name]();
  const query = (text, values) => client.query(text, values);
  const samples = await alternatingRounds({ subjects, names, rounds, perRound, postmaster: server.postmaster, query });
  const result = { rounds, deliveries_per_round: perRound, load: await loadAverage() };
  for (const name of names) result[name] = roundFigures(samples, name);
  const tables = await client.query(
    `SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_dead_tup FROM pg_stat_user_tables WHERE relname LIKE '%_res' ORDER BY relname`,
  );
  result.tables = tables.rows;
  if (statements) {
    const { rows } = await client.query(`SELECT calls, round((total_exec_time * 1000 / calls)::numeric, 1)::float8 AS exec_us,
      round((wal_bytes / calls)::numeric)::int AS wal_bytes, left(query, 60) AS query FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 12`);
    result.statements = rows;
  }
  console.log(JSON.stringify(result));
} finally {
  await client.end();
  await server.stop();
}
