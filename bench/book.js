// The payment book's backends (issue 22), each against its baseline side by side, in alternating rounds:
// - Redis: what a processing with a Redis store and a Redis book on the same client runs per delivery (issue 36): one
//   script that takes the order lease (the fair ticket queue's turn), claims and reads the book, the shared decision,
//   then one script that writes the book, sets the done mark and gives the lease back: two round trips. Its baseline is
//   what a delivery without a book sends the store, like for like: the claim, then the done mark (`redisDedupeStore`
//   `claim` then `complete`, two round trips; `ratio_vs_lifecycle`). Also shown against the claim alone (one
//   EVALSHA; `ratio`), which two sequential round trips can never come near. One call at a time.
//   Also: processing.accept() with the book against the same processing without one (both with the Redis store).
// - Postgres: a transactional handler inside the book's transaction (BEGIN with the book's lock and read, which also
//   answers the handler's claim; the merchant's INSERT; the book's write, the claim and COMMIT as one query: three
//   round trips) against the same INSERT in a bare transaction (BEGIN; INSERT; COMMIT); also processing.accept() on
//   the inbox's store with the book against the same without it; and the round trips of each.
// Also shown: the claim, then the record in two steps (what runs when the store and the book cannot share a script).
// Run: npm run build && node bench/book.js [--quick] [--redis]. Prints one JSON object.
// --redis (or PIXHOOK_BENCH_BOOK=redis) runs only the Redis half; PIXHOOK_BENCH_BOOK=postgres only the Postgres half.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createProcessing } from 'pixhook';
import { postgresInbox, postgresPaymentBook } from 'pixhook/postgres';
import { redisDedupeStore, redisPaymentBook } from 'pixhook/redis';
// Internal (not exported): the joined claim the processing uses, and the inbox's open book transactions.
import { joinedClaimOf } from '../dist/src/book/joined-claim.js';
import { inboxLink } from '../dist/src/postgres/postgres-inbox.js';
import { paidEvent } from './lib/book-deliveries.js';
import { interleave, pairedSpread } from './lib/interleave.js';
import { startRedisServer } from './lib/redis-server.js';
import { bareTransaction, createLedger, insertLedger } from './lib/ledger.js';
import { median, quick, round } from './lib/stats.js';
import { startPostgresServer } from './postgres-server.js';

const options = quick
  ? { rounds: 3, sliceMs: 20, warmupMs: 100, calibrate: 20, minIterations: 5 }
  : { rounds: 20, sliceMs: 150, warmupMs: 1000, calibrate: 200, minIterations: 20 };
const paid = paidEvent;

async function redisBench() {
  const server = await startRedisServer();
  const client = new Redis({ host: '127.0.0.1', port: server.port, lazyConnect: true });
  try {
    await client.connect();
    const store = redisDedupeStore({ client, prefix: 'bench:{book}:dedupe:', quarantine: false });
    const book = redisPaymentBook({ client, prefix: 'bench:{book}:' });
    const joined = joinedClaimOf(store, book);
    if (joined === undefined) throw new Error('the store and the book did not join');
    let n = 0;
    const mark = (key, owner, fence) => ({
      store,
      key,
      owner,
      ttlMs: 60_000,
      lease: { resource: 't:' + fence.resource, fence: fence.fence },
    });
    // What a processing with a book runs per delivery on Redis (issue 36): one script that takes the order lease, claims
    // and reads the book, then (the handlers succeeded) one script that writes the book, sets the done mark and gives
    // the lease back.
    async function claimBookLease(i) {
      const key = `transaction_paid:txn_${i}:paid`;
      const owner = randomUUID();
      const lease = { resource: `t:txn_${i}`, ttlMs: 60_000, ticketTtlMs: 16_000 };
      const result = await joined(key, owner, 60_000, paid(`txn_${i}`), { dedupeKey: key }, lease);
      if (result.claim !== 'claimed' || result.recorded.outcome !== 'apply') throw new Error(`joined claim answered ${result.claim}`);
      const committed = await result.recorded.commit(mark(key, owner, { resource: `txn_${i}`, fence: result.fence }));
      if (committed.marked !== true || committed.leaseGiven !== true) throw new Error('the commit did not mark and give back');
    }
    const processing = (withBook) => createProcessing({ store, ...(withBook && { book }) }).on('transaction_paid', () => {});
    const bare = processing(false);
    const booked = processing(true);
    const accept = (subject) => async () => {
      const result = await subject.accept(paid(`acc_${n++}`));
      if (result.reason !== undefined) throw new Error(`accept answered ${result.reason}`);
    };
    const subjects = {
      claim: {
        async: true,
        async fn() {
          const result = await store.claim(`transaction_paid:txn_${n++}:paid`, randomUUID(), 60_000);
          if (result !== 'claimed') throw new Error(`claim answered ${result}`);
        },
      },
      // A bookless delivery's store calls: its claim, then (the handlers succeeded) its done mark.
      'claim + done mark': {
        async: true,
        async fn() {
          const key = `transaction_paid:txn_${n++}:paid`;
          const owner = randomUUID();
          const result = await store.claim(key, owner, 60_000);
          if (result !== 'claimed') throw new Error(`claim answered ${result}`);
          if ((await store.complete(key, owner, 60_000)) !== true) throw new Error('the done mark was refused');
        },
      },
      'claim + book + lease': { async: true, fn: () => claimBookLease(n++) },
      // What a processing does when the two cannot share a script: the claim, the book's judgement, its commit, the done mark.
      'claim, then record': {
        async: true,
        async fn() {
          const i = n++;
          const key = `transaction_paid:txn_${i}:paid`;
          if ((await store.claim(key, 'o', 60_000)) !== 'claimed') throw new Error('not claimed');
          const judged = await book.judge(paid(`txn_${i}`), { dedupeKey: key });
          if (judged.outcome !== 'apply') throw new Error('not applied');
          await judged.commit({ store: undefined, key, owner: 'o', ttlMs: 60_000, lease: undefined });
          await store.complete(key, 'o', 60_000);
        },
      },
      'accept()': { async: true, fn: accept(bare) },
      'accept() with the book': { async: true, fn: accept(booked) },
    };
    const samples = await interleave(subjects, { ...options, calibrate: quick ? 20 : 2000, minIterations: quick ? 5 : 200 });
    return {
      claim_us: round(median(samples.claim) / 1000, 1),
      claim_done_us: round(median(samples['claim + done mark']) / 1000, 1),
      claim_book_us: round(median(samples['claim + book + lease']) / 1000, 1),
      two_steps_us: round(median(samples['claim, then record']) / 1000, 1),
      accept_us: round(median(samples['accept()']) / 1000, 1),
      accept_book_us: round(median(samples['accept() with the book']) / 1000, 1),
      // Like for like: the book's two round trips ÷ the bookless delivery's two (the goal's ratio).
      ratio_vs_lifecycle: pairedSpread(samples, 'claim + book + lease', 'claim + done mark'),
      // The old baseline, kept beside it: ÷ one bare claim.
      ratio: pairedSpread(samples, 'claim + book + lease', 'claim'),
      lifecycle_vs_claim: pairedSpread(samples, 'claim + done mark', 'claim'),
      two_steps_ratio: pairedSpread(samples, 'claim, then record', 'claim'),
      accept_ratio: pairedSpread(samples, 'accept() with the book', 'accept()'),
    };
  } finally {
    client.disconnect();
    await server.stop();
  }
}

/** Queries sent to the server per run of each subject (one `pg` query is one round trip), counted on one run each. */
async function countRoundTrips(subjects) {
  const counts = {};
  const query = pg.Client.prototype.query;
  let sent = 0;
  pg.Client.prototype.query = function (...args) {
    sent++;
    return query.apply(this, args);
  };
  try {
    for (const [name, subject] of Object.entries(subjects)) {
      sent = 0;
      await subject.fn();
      counts[name] = sent;
    }
  } finally {
    pg.Client.prototype.query = query;
  }
  return counts;
}

async function postgresBench() {
  const server = await startPostgresServer();
  const pool = new pg.Pool({ connectionString: server.url, max: 4 });
  // Its store holds a lock connection until closed.
  const inbox = postgresInbox({ pool, table: 'bench_inbox' });
  try {
    const book = postgresPaymentBook({ db: pool, inbox, table: 'bench_book' });
    await Promise.all([inbox.migrate(), book.migrate()]);
    // The processing pairs the book with the inbox's store: from then on a record stays open for the handlers.
    createProcessing({ store: inbox.store, book });
    const { shared } = inboxLink(inbox);
    await createLedger(pool);
    const insert = insertLedger;
    const signal = new AbortController().signal;
    let n = 0;
    const handler = inbox.transactional(async (_event, { key, tx }) => insert(tx, key, n));
    const bare = () => bareTransaction(pool, ++n);
    async function withBook() {
      const i = ++n;
      const key = `transaction_paid:book_${i}:paid`;
      const event = paid(`book_${i}`);
      const recorded = await book.record(event, { dedupeKey: key });
      if (recorded.outcome !== 'apply') throw new Error(`the book answered ${recorded.outcome}`);
      await handler(event, { key, attempt: 1, mode: 'inline', source: 'webhook', signal, markDuplicate() {} });
      await shared.settle(key, true);
    }
    // Without the inbox (issue 36): the book judges, the handler runs its own transaction, then the apply is one
    // compare-and-set statement (the done mark is the store's, elsewhere).
    const plainBook = postgresPaymentBook({ db: pool, table: 'bench_plain_book' });
    await plainBook.migrate();
    async function withPlainBook() {
      const i = ++n;
      const key = `transaction_paid:plain_${i}:paid`;
      const judged = await plainBook.judge(paid(`plain_${i}`), { dedupeKey: key });
      if (judged.outcome !== 'apply') throw new Error(`the book answered ${judged.outcome}`);
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await insert(client, key, i);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      await judged.commit({ store: undefined, key, owner: 'o', ttlMs: 60_000, lease: undefined });
    }
    // A whole delivery through processing.accept() on the inbox's store, the same transactional handler, with the
    // book and without it: claim, order lease, (the book), the handler, the done mark.
    const accepting = (withBook) =>
      createProcessing({ store: inbox.store, ...(withBook && { book }) }).on(
        'transaction_paid',
        inbox.transactional(async (event, { key, tx }) => insert(tx, key, n)),
      );
    const acceptBare = accepting(false);
    const acceptBooked = accepting(true);
    const accept = (subject, prefix) => async () => {
      const result = await subject.accept(paid(`${prefix}_${++n}`));
      if (result.reason !== undefined) throw new Error(`accept answered ${result.reason}`);
    };
    const subjects = {
      bare: { async: true, fn: bare },
      'handler + book': { async: true, fn: withBook },
      'handler + book, no inbox': { async: true, fn: withPlainBook },
      'accept()': { async: true, fn: accept(acceptBare, 'acc') },
      'accept() with the book': { async: true, fn: accept(acceptBooked, 'accbook') },
    };
    const roundTrips = await countRoundTrips(subjects);
    const samples = await interleave(subjects, options);
    const { rows } = await pool.query(
      `SELECT (SELECT count(*)::int FROM ledger WHERE event_key LIKE '%book_%') AS ledger, (SELECT count(*)::int FROM bench_book_resources) AS book`,
      // Every booked delivery wrote its ledger row and its book row (`book_` and `accbook_` charges alike).
    );
    if (rows[0].ledger !== rows[0].book) throw new Error(`ledger rows ${rows[0].ledger} ≠ book rows ${rows[0].book}`);
    return {
      bare_us: round(median(samples.bare) / 1000, 1),
      handler_book_us: round(median(samples['handler + book']) / 1000, 1),
      handler_book_no_inbox_us: round(median(samples['handler + book, no inbox']) / 1000, 1),
      ratio: pairedSpread(samples, 'handler + book', 'bare'),
      no_inbox_ratio: pairedSpread(samples, 'handler + book, no inbox', 'bare'),
      accept_us: round(median(samples['accept()']) / 1000, 1),
      accept_book_us: round(median(samples['accept() with the book']) / 1000, 1),
      accept_ratio: pairedSpread(samples, 'accept() with the book', 'accept()'),
      round_trips: roundTrips,
    };
  } finally {
    await inbox.close();
    await pool.end();
    await server.stop();
  }
}

// --redis or PIXHOOK_BENCH_BOOK=redis runs only the Redis half; PIXHOOK_BENCH_BOOK=postgres only the Postgres half.
const only = process.argv.includes('--redis') ? 'redis' : process.env.PIXHOOK_BENCH_BOOK;
console.log(
  JSON.stringify({
    ...(only !== 'postgres' && { redis: await redisBench() }),
    ...(only !== 'redis' && { postgres: await postgresBench() }),
  }),
);
