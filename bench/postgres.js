// Section 6: a transactional handler (pixhook/postgres) against the same INSERT in a bare transaction,
// same pg Pool, same server, one event at a time (round-trip latency), in alternating rounds.
// Bare: BEGIN; INSERT; COMMIT. Inbox: BEGIN; claim (INSERT … ON CONFLICT); the same INSERT; COMMIT.
import pg from 'pg';
import { postgresInbox } from 'pixhook/postgres';
import { interleave, pairedRatio } from './lib/interleave.js';
import { median, quick, round } from './lib/stats.js';
import { startPostgresServer } from './postgres-server.js';

const fsync = !process.argv.includes('--no-fsync');
const server = await startPostgresServer({ fsync });
const pool = new pg.Pool({ connectionString: server.url, max: 2 });
try {
  const inbox = postgresInbox({ pool, table: 'bench_inbox' });
  await inbox.migrate();
  await pool.query('CREATE TABLE ledger (event_key text NOT NULL, tx_id text NOT NULL, amount_in_cents integer NOT NULL)');
  const book = (tx, key, n) => tx.query('INSERT INTO ledger (event_key, tx_id, amount_in_cents) VALUES ($1, $2, $3)', [key, `tx_${n}`, 1000 + (n % 500)]);
  const event = { kind: 'transaction', name: 'transaction_paid' };
  const handler = inbox.transactional(async (_event, { key, tx }) => {
    await book(tx, key, n);
  });
  const signal = new AbortController().signal;
  let n = 0;
  const subjects = {
    bare: {
      async: true,
      async fn() {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await book(client, `transaction_paid:bare_${++n}:paid`, n);
          await client.query('COMMIT');
        } finally {
          client.release();
        }
      },
    },
    inbox: {
      async: true,
      async fn() {
        await handler(event, { key: `transaction_paid:inbox_${++n}:paid`, attempt: 1, mode: 'durable', source: 'webhook', signal });
      },
    },
  };
  const options = quick ? { rounds: 3, sliceMs: 20, warmupMs: 100 } : { rounds: 20, sliceMs: 150, warmupMs: 1000 };
  const samples = await interleave(subjects, options);
  const { rows } = await pool.query("SELECT count(*)::int AS ledger, (SELECT count(*)::int FROM bench_inbox) AS marks FROM ledger WHERE event_key LIKE '%inbox_%'");
  if (rows[0].ledger !== rows[0].marks) throw new Error(`inbox rows ${rows[0].ledger} ≠ marks ${rows[0].marks}`);
  console.log(
    JSON.stringify({
      fsync,
      bare_us: round(median(samples.bare) / 1000, 1),
      inbox_us: round(median(samples.inbox) / 1000, 1),
      ratio: round(pairedRatio(samples, 'inbox', 'bare'), 3),
    }),
  );
} finally {
  await pool.end();
  await server.stop();
}
