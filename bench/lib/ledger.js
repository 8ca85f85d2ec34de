// The merchant's ledger of the Postgres book benches (bench/book.js, bench/book-postgres-cpu.js): one INSERT a
// delivery, inside the book's transaction or in a bare one.

export const createLedger = (pool) =>
  pool.query('CREATE TABLE ledger (event_key text NOT NULL, tx_id text NOT NULL, amount_in_cents integer NOT NULL)');

/** The handler's write: one row for delivery `i`, on `tx` (a transaction's client). */
export const insertLedger = (tx, key, i) =>
  tx.query('INSERT INTO ledger (event_key, tx_id, amount_in_cents) VALUES ($1, $2, $3)', [key, `tx_${i}`, 1000 + (i % 500)]);

/** The baseline: the same INSERT in a bare transaction (BEGIN; INSERT; COMMIT: three round trips). */
export async function bareTransaction(pool, i) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await insertLedger(client, `transaction_paid:bare_${i}:paid`, i);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

/**
 * A delivery of `event` (dedupe key `key`) with the Postgres book and its inbox, as `bench/book.js` times it: the
 * book's record (BEGIN with its lock and read), the transactional `handler` inside the book's transaction, then the
 * settle (the book's write, the claim and the COMMIT). `shared`: the inbox's open transactions (`inboxLink(inbox)`).
 */
export async function bookedDelivery({ book, handler, shared, signal }, event, key) {
  const recorded = await book.record(event, { dedupeKey: key });
  if (recorded.outcome !== 'apply') throw new Error(`the book answered ${recorded.outcome}`);
  await handler(event, { key, attempt: 1, mode: 'inline', source: 'webhook', signal, markDuplicate() {} });
  await shared.settle(key, true);
}
