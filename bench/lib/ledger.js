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
