// Section 6: a transactional handler (pixhook/postgres) against the same INSERT in a bare transaction,
// same pg Pool, same server, in alternating rounds (order rotated). Bare: BEGIN; INSERT; COMMIT.
// Inbox: BEGIN; claim (INSERT … ON CONFLICT); the same INSERT into the merchant's table; COMMIT.
// Two loads: one event at a time (round-trip latency: the target) and ten at a time on a pool of ten
// (throughput, where commits share the WAL flush).
import pg from 'pg';
import { postgresInbox } from 'pixhook/postgres';
import { interleave, pairedSpread } from './lib/interleave.js';
import { median, quick, round } from './lib/stats.js';
import { startPostgresServer } from './postgres-server.js';

const fsync = !process.argv.includes('--no-fsync');
const parallel = 10;
const server = await startPostgresServer({ fsync });
const pool = new pg.Pool({ connectionString: server.url, max: parallel });
try {
  const inbox = postgresInbox({ pool, table: 'bench_inbox' });
  await inbox.migrate();
  await pool.query('CREATE TABLE ledger (event_key text NOT NULL, tx_id text NOT NULL, amount_in_cents integer NOT NULL)');
  const book = (tx, key, i) =>
    tx.query('INSERT INTO ledger (event_key, tx_id, amount_in_cents) VALUES ($1, $2, $3)', [key, `tx_${i}`, 1000 + (i % 500)]);
  const event = { kind: 'transaction', name: 'transaction_paid' };
  const handler = inbox.transactional(async (_event, { key, tx }) => {
    await book(tx, key, n);
  });
  const signal = new AbortController().signal;
  let n = 0;
  async function bare() {
    const i = ++n;
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await book(client, `transaction_paid:bare_${i}:paid`, i);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  }
  const viaInbox = () =>
    handler(event, { key: `transaction_paid:inbox_${++n}:paid`, attempt: 1, mode: 'durable', source: 'webhook', signal });
  // ns per call of `parallel` concurrent events; divided by `parallel` below.
  const many = (one) => () => Promise.all(Array.from({ length: parallel }, one));
  const subjects = {
    bare: { async: true, fn: bare },
    inbox: { async: true, fn: viaInbox },
    [`bare ×${parallel}`]: { async: true, fn: many(bare) },
    [`inbox ×${parallel}`]: { async: true, fn: many(viaInbox) },
  };
  const options = quick
    ? { rounds: 3, sliceMs: 20, warmupMs: 100, calibrate: 20, minIterations: 5 }
    : { rounds: 20, sliceMs: 150, warmupMs: 1000, calibrate: 200, minIterations: 20 };
  const samples = await interleave(subjects, options);
  const { rows } = await pool.query(
    "SELECT count(*)::int AS ledger, (SELECT count(*)::int FROM bench_inbox) AS marks FROM ledger WHERE event_key LIKE '%inbox_%'",
  );
  if (rows[0].ledger !== rows[0].marks) throw new Error(`inbox rows ${rows[0].ledger} ≠ marks ${rows[0].marks}`);
  const us = (name, per = 1) => round(median(samples[name]) / per / 1000, 1);
  console.log(
    JSON.stringify({
      fsync,
      parallel,
      bare_us: us('bare'),
      inbox_us: us('inbox'),
      ratio: pairedSpread(samples, 'inbox', 'bare'),
      bare_parallel_us: us(`bare ×${parallel}`, parallel),
      inbox_parallel_us: us(`inbox ×${parallel}`, parallel),
      ratio_parallel: pairedSpread(samples, `inbox ×${parallel}`, `bare ×${parallel}`),
    }),
  );
} finally {
  await pool.end();
  await server.stop();
}
