/** The SQLSTATE of a driver error: `pg` and postgres.js put it on `code`; Drizzle wraps it in `cause`. */
export function sqlState(error: unknown): string | undefined {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Serialization failure and deadlock: the transaction did nothing and may simply run again. */
export function isRetryableTransactionError(error: unknown): boolean {
  const state = sqlState(error);
  return state === '40001' || state === '40P01';
}
