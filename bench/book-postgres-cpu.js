// The Postgres payment book's cost per delivery, split where it goes (issue 36): this process's CPU
// (`process.cpuUsage()`), the server's CPU (utime + stime of every PostgreSQL process, from /proc: the backends,
// the WAL writer, the checkpointer) and the WAL each delivery writes (`pg_current_wal_lsn()` before and after), for
// the bare transaction (`BEGIN; INSERT; COMMIT`) and an `inbox.transactional` handler inside the book's transaction
// (what `bench/book.js` times), in alternating rounds of one process. Load-independent figures where the wall clock
// is not: on a shared machine, read the CPU and WAL columns. Linux only (reads /proc).
//
//   npm run build && node bench/book-postgres-cpu.js [--quick] [--no-fsync]
//   BOOK_PG_BEFORE=/tmp/old node bench/book-postgres-cpu.js   also another build's book (its dist/ under that folder)
//   BOOK_PG_STATEMENTS=1 node bench/book-postgres-cpu.js      also pg_stat_statements per booked delivery
//   BOOK_PG_PROFILE=/tmp/prof node bench/book-postgres-cpu.js  this process under the inspector's CPU profiler
//   BOOK_PG_ONLY=bare | 'handler + book'                      one subject only (for a profile, or `perf record`)
//   BOOK_PG_PIDS=/tmp/pids                                    writes "<this pid> <postmaster pid>" there (for perf -p)
//   BOOK_PG_ROUNDS, BOOK_PG_DELIVERIES (per round), BOOK_PG_WARMUP (deliveries per subject first)
//
// Prints one JSON line: per subject, medians over the rounds (min–max) per delivery.
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { paidEvent } from './lib/book-deliveries.js';
import { bareTransaction, bookedDelivery, createLedger, insertLedger } from './lib/ledger.js';
import { quick } from './lib/stats.js';
import { alternatingRounds, loadAverage, roundFigures } from './lib/server-rounds.js';
import { startPostgresServer } from './postgres-server.js';

const fsync = !process.argv.includes('--no-fsync');
const statements = process.env.BOOK_PG_STATEMENTS === '1';
const rounds = quick ? 2 : Number(process.env.BOOK_PG_ROUNDS ?? 6);
const perRound = quick ? 50 : Number(process.env.BOOK_PG_DELIVERIES ?? 400);

const paid = paidEvent;

/** A pixhook build's Postgres book and inbox (dist/ under `root`), paired as a processing pairs them. */
async function bookOf(root, pool, suffix) {
  const dist = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
  const { createProcessing } = await dist('src/index.js');
  const { postgresInbox, postgresPaymentBook } = await dist('src/postgres/index.js');
  const { inboxLink } = await dist('src/postgres/postgres-inbox.js');
  const inbox = postgresInbox({ pool, table: `bench_inbox${suffix}` });
  const book = postgresPaymentBook({ db: pool, inbox, table: `bench_book${suffix}` });
  await inbox.migrate();
  await book.migrate();
  createProcessing({ store: inbox.store, book });
  return { inbox, book, shared: inboxLink(inbox).shared };
}

const server = await startPostgresServer({
  fsync,
  settings: statements
    ? ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all', 'pg_stat_statements.track_planning=on']
    : [],
});
if (process.env.BOOK_PG_PIDS) await writeFile(process.env.BOOK_PG_PIDS, `${process.pid} ${server.postmaster}\n`);
const pool = new pg.Pool({ connectionString: server.url, max: 4 });
const books = [];
try {
  await createLedger(pool);
  if (statements) await pool.query('CREATE EXTENSION pg_stat_statements');
  const insert = insertLedger;
  const signal = new AbortController().signal;
  let n = 0;
  const subjects = {
    bare: () => bareTransaction(pool, ++n),
  };
  const booked = async (name, root, suffix) => {
    const { inbox, book, shared } = await bookOf(root, pool, suffix);
    books.push(inbox);
    const handler = inbox.transactional(async (_event, { key, tx }) => insert(tx, key, n));
    subjects[name] = () => {
      const i = ++n;
      return bookedDelivery({ book, handler, shared, signal }, paid(`book${suffix}_${i}`), `transaction_paid:book${suffix}_${i}:paid`);
    };
  };
  await booked('handler + book', resolve('.'), '');
  if (process.env.BOOK_PG_BEFORE) await booked('handler + book (before)', resolve(process.env.BOOK_PG_BEFORE), '_before');

  // BOOK_PG_ONLY=bare (or a subject's name): only that one, for a profile of its own.
  const names = Object.keys(subjects).filter((name) => (process.env.BOOK_PG_ONLY ?? name) === name);
  const warmup = Number(process.env.BOOK_PG_WARMUP ?? perRound);
  for (const name of names) for (let i = 0; i < warmup; i++) await subjects[name]();
  const session = process.env.BOOK_PG_PROFILE ? new Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 50 });
    await session.post('Profiler.start');
  }
  const query = (text, values) => pool.query(text, values);
  const samples = await alternatingRounds({ subjects, names, rounds, perRound, postmaster: server.postmaster, query });
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(`${process.env.BOOK_PG_PROFILE}.cpuprofile`, JSON.stringify(profile));
  }
  const result = { fsync, rounds, deliveries_per_round: perRound, load: await loadAverage() };
  for (const name of names) result[name] = roundFigures(samples, name);
  if (statements) {
    await pool.query('SELECT pg_stat_statements_reset()');
    const count = 500;
    for (let i = 0; i < count; i++) await subjects['handler + book']();
    const { rows } = await pool.query(
      `SELECT calls, round((total_exec_time * 1000 / $1)::numeric, 1)::float8 AS exec_us_per_delivery,
        round((total_plan_time * 1000 / $1)::numeric, 1)::float8 AS plan_us_per_delivery,
        round((wal_bytes / $1)::numeric)::float8 AS wal_bytes_per_delivery, round((wal_records::numeric / $1), 2)::float8 AS wal_records,
        round((shared_blks_hit + shared_blks_read)::numeric / $1, 1)::float8 AS blocks, shared_blks_dirtied AS dirtied,
        left(regexp_replace(query, '\\s+', ' ', 'g'), 160) AS query
      FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time DESC`.replaceAll('$1', `${count}.0`),
    );
    result.statements_per_booked_delivery = rows;
    result.tables = (
      await pool.query(
        `SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname LIKE 'bench_%' AND n_tup_ins > 0`,
      )
    ).rows;
  }
  console.log(JSON.stringify(result));
} finally {
  for (const inbox of books) await inbox.close();
  await pool.end();
  await server.stop();
}
