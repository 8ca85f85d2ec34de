import type { HandlerContext, PixEvent, UnknownEvent } from '../index.js';
import type { InboxNames } from './inbox-schema.js';
import type { IsolationLevel, SqlDatabase, SqlExecutor, SqlRow } from './sql-database.js';
import type { SharedTransactions } from './shared-transactions.js';
import { isRetryableTransactionError } from './sql-state.js';
import { checkOneOf, mustBe, refuseRenamed } from '../shared/option-checks.js';
import { resolveRetry, type RetryOptions, type RetryPolicy } from '../shared/retry-options.js';

/** What a transactional handler receives: the processing context plus the open transaction. */
export type TransactionalContext = HandlerContext & { readonly tx: SqlExecutor };

/** Its result is ignored (returning a query's result is fine). */
export type TransactionalHandler<E> = (event: E, context: TransactionalContext) => unknown;

/** `handled`: the handler ran and its writes committed with the key. `skipped`: the key was already done. */
export type TransactionalOutcome = 'handled' | 'skipped';

export interface TransactionalOptions {
  /**
   * Which handler's effects the key marks. Default `effects`. Give each transactional handler of one
   * event its own scope, or the second would find the key done and be skipped.
   */
  scope?: string;
  /** Default: the inbox's (`read committed`). */
  isolation?: IsolationLevel;
  /** Runs after a serialization failure (40001) or a deadlock (40P01), and the waits between them. Default: the inbox's; given, it replaces the inbox's. */
  retry?: RetryOptions;
  /** Called when the event's key was already done and the handler was skipped (a duplicate). */
  onSkipped?: (event: PixEvent | UnknownEvent, context: HandlerContext) => void;
}

export interface TransactionalSettings {
  db: SqlDatabase;
  names: InboxNames;
  dedupeKey: (event: PixEvent) => string;
  dedupeTtlMs: number;
  isolation: IsolationLevel;
  retry: RetryPolicy;
  /** The payment book's open transactions (`postgresPaymentBook({ inbox })`): a handler of the event writes inside its. */
  shared?: SharedTransactions;
}

/** 4 runs in all; each wait random between 5 ms and 20 ms doubling (jitter: two retried transactions should not meet again). */
const transactionRetryDefaults = { attempts: 4, backoff: { delayMs: 20, factor: 2, maxDelayMs: 5_000 } };
const transactionRetryRenames = { maxRetries: '`retry: { attempts }` (attempts = maxRetries + 1)' };

/** The inbox's or a handler's `retry`; the old `maxRetries` is refused. */
export function transactionRetry(options: { retry?: RetryOptions; maxRetries?: unknown } | undefined, fallback?: RetryPolicy): RetryPolicy {
  refuseRenamed(options, transactionRetryRenames);
  if (options?.retry === undefined && fallback !== undefined) return fallback;
  return resolveRetry('retry', options?.retry, transactionRetryDefaults);
}

const effectsScope = 'effects';

const outcomes = new WeakMap<HandlerContext, TransactionalOutcome>();

/**
 * What the last transactional handler did with this context: `handled`, `skipped` (the key was already
 * done: a duplicate), or `undefined` when none ran. Processing gives every handler of one run the same
 * context, so a later handler (or your `onAny`) can read it.
 */
export function transactionalOutcome(context: HandlerContext): TransactionalOutcome | undefined {
  return outcomes.get(context);
}

/** `text(names)` built once per inbox (its names), not on every delivery. */
function perInbox(text: (names: InboxNames) => string): (names: InboxNames) => string {
  const built = new WeakMap<InboxNames, string>();
  return (names) => {
    let found = built.get(names);
    if (found === undefined) built.set(names, (found = text(names)));
    return found;
  };
}

/**
 * The claim statement, first in the transaction: inserts the key's row, or takes over an expired one.
 * A concurrent duplicate's INSERT waits on the unique index until the first transaction ends; then it
 * finds the row committed (nothing returned: skip) or rolled back (inserted: run). Under repeatable
 * read or serializable it fails with 40001 instead, and the retry sees the committed row.
 */
const claimStatement = perInbox(function claimText({ table }) {
  return `INSERT INTO ${table} AS inbox (scope, key, expires_at) VALUES ($1, $2, now() + $3::double precision * interval '1 millisecond')
    ON CONFLICT (scope, key) DO UPDATE SET done_at = now(), expires_at = EXCLUDED.expires_at WHERE inbox.expires_at <= now()
    RETURNING 1 AS claimed`;
});

/**
 * The claim a transactional handler of `key` makes by default (scope `effects`), exactly as it sends it, and a
 * read of what it would find (`$2` the key; no row written, no lock taken): `true` the key done, `false` a row
 * whose TTL ran out (the claim takes it over), `NULL` no row. The payment book reads it with its own first
 * statement, so that claim needs no round trip of its own (shared-transactions.ts).
 */
export function defaultClaim(settings: Pick<TransactionalSettings, 'names' | 'dedupeTtlMs'>, key: string) {
  return { text: claimStatement(settings.names), values: [effectsScope, key, settings.dedupeTtlMs] as (string | number)[] };
}
export function defaultClaimDoneSql(names: InboxNames): string {
  return `(SELECT expires_at > now() FROM ${names.table} WHERE scope = '${effectsScope}' AND key = $2)`;
}

/**
 * That claim as the book writes it at the COMMIT when the read found no row: a plain insert (`DO NOTHING` on a
 * conflict, so a row another transaction committed meanwhile claims nothing, as the default claim would find it
 * done). It has no `DO UPDATE` for the server to set up on each run: only a row that was there when read can have
 * expired, and then the default claim is written instead.
 */
export function freshClaim(settings: Pick<TransactionalSettings, 'names' | 'dedupeTtlMs'>, key: string) {
  return { text: freshClaimStatement(settings.names), values: [effectsScope, key, settings.dedupeTtlMs] as (string | number)[] };
}
const freshClaimStatement = perInbox(
  ({ table }) => `INSERT INTO ${table} (scope, key, expires_at) VALUES ($1, $2, now() + $3::double precision * interval '1 millisecond')
    ON CONFLICT (scope, key) DO NOTHING RETURNING 1 AS claimed`,
);

export function keyOf(settings: Pick<TransactionalSettings, 'dedupeKey'>, event: PixEvent | UnknownEvent | string, key?: string): string {
  if (typeof event === 'string') return event;
  if (key !== undefined && key !== '') return key;
  if (event.kind === 'unknown') {
    throw mustBe('context.key', 'a non-empty string for an unknown event (it carries no dedupe key of its own)', key);
  }
  return settings.dedupeKey(event);
}

/** Claims `key` inside the caller's open transaction: `claimed` (go on) or `done` (already processed; skip). */
export async function claimIn(
  tx: SqlExecutor,
  settings: TransactionalSettings,
  key: string,
  scope = effectsScope,
): Promise<'claimed' | 'done'> {
  const { rows } = await tx.query(claimStatement(settings.names), [scope, key, settings.dedupeTtlMs]);
  return rows.length > 0 ? 'claimed' : 'done';
}

const isolationLevels: readonly IsolationLevel[] = ['read committed', 'repeatable read', 'serializable'];

/** The level goes into `BEGIN ISOLATION LEVEL …` as text: only the three known ones get there. */
export function checkedIsolation(isolation: IsolationLevel): IsolationLevel {
  return checkOneOf('isolation', isolation, isolationLevels);
}

const runOf = Symbol('pixhook.run');

/**
 * A transactional handler's context: the run's own (`signal`, `markDuplicate` and the rest read and mark the run)
 * with `tx`. A class whose getters read the run, not `Object.create(context)`: a fresh prototype per delivery gave
 * every copy a hidden class of its own, microseconds to build, and every read of it missed V8's inline caches.
 * Its fields are plain (a symbol), not `#private`, so a copy made of it with `Object.create` reads the same.
 */
class WithTransaction implements TransactionalContext {
  readonly [runOf]: HandlerContext;
  readonly tx: SqlExecutor;
  constructor(run: HandlerContext, tx: SqlExecutor) {
    this[runOf] = run;
    this.tx = tx;
  }
  get key(): string | undefined {
    return this[runOf].key;
  }
  get attempt(): number {
    return this[runOf].attempt;
  }
  get mode(): HandlerContext['mode'] {
    return this[runOf].mode;
  }
  get source(): HandlerContext['source'] {
    return this[runOf].source;
  }
  get signal(): AbortSignal {
    return this[runOf].signal;
  }
  markDuplicate(): void {
    this[runOf].markDuplicate();
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The handler, once its claim answered `rows` in `tx`: `skipped` (no row: the key was done) or `handled`. In the book's
 * open transaction (`shared`), a failure rolls back the book's entry with the handler's writes.
 */
async function runHandler<E>(
  handler: TransactionalHandler<E>,
  event: E,
  context: HandlerContext,
  tx: SqlExecutor,
  rows: SqlRow[],
  shared?: { transactions: SharedTransactions; key: string },
): Promise<TransactionalOutcome> {
  try {
    if (rows.length === 0) return 'skipped';
    await handler(event, new WithTransaction(context, tx));
    // The run was abandoned (time limit, claim lost): roll back rather than commit behind its back.
    if (context.signal.aborted) throw context.signal.reason;
    return 'handled';
  } catch (error) {
    if (shared === undefined) throw error;
    return failIn(shared.transactions, shared.key, error);
  }
}

/** Rolls back the book's open transaction of `key` (its handler or claim failed), then rejects with `error`. */
async function failIn(transactions: SharedTransactions, key: string, error: unknown): Promise<never> {
  await transactions.fail(key);
  throw error;
}

/** The claim and the handler inside the book's open transaction (the presumed claim answers at once, no promise). */
function inShared<E>(
  tx: SqlExecutor,
  transactions: SharedTransactions,
  key: string,
  first: { text: string; values: (string | number)[] },
  handler: TransactionalHandler<E>,
  event: E,
  context: HandlerContext,
): Promise<TransactionalOutcome> {
  const shared = { transactions, key };
  // The claim carries the book's write, still unsent, in the same round trip (`first` never throws: its answer, or a promise).
  const rows = transactions.first(key, tx, first);
  if (Array.isArray(rows)) return runHandler(handler, event, context, tx, rows, shared);
  return rows.then(
    (answered) => runHandler(handler, event, context, tx, answered, shared),
    (error: unknown) => failIn(transactions, key, error),
  );
}

export function transactional<E extends PixEvent | UnknownEvent>(
  settings: TransactionalSettings,
  handler: TransactionalHandler<E>,
  options: TransactionalOptions = {},
): (event: E, context: HandlerContext) => Promise<void> {
  const scope = options.scope ?? effectsScope;
  const isolation = checkedIsolation(options.isolation ?? settings.isolation);
  const policy = transactionRetry(options, settings.retry);
  const claim = claimStatement(settings.names);
  return async (event, context) => {
    const key = keyOf(settings, event, context.key);
    for (let retry = 0; ; retry++) {
      try {
        const first = { text: claim, values: [scope, key, settings.dedupeTtlMs] };
        const { db, shared } = settings;
        const open = shared?.take(key);
        const outcome = open
          ? await inShared(open, shared!, key, first, handler, event, context)
          : db.transactionWith
            ? await db.transactionWith(isolation, first, (tx, rows) => runHandler(handler, event, context, tx, rows))
            : await db.transaction(isolation, async (tx) =>
                runHandler(handler, event, context, tx, (await tx.query(first.text, first.values)).rows),
              );
        outcomes.set(context, outcome);
        if (outcome === 'skipped') {
          // Processing answers this run 200 duplicate and does not count it as handled.
          context.markDuplicate();
          try {
            options.onSkipped?.(event, context);
          } catch {
            // A reporting hook that throws must not turn a committed duplicate into a failure.
          }
        }
        return;
      } catch (error) {
        if (retry + 1 >= policy.attempts || !isRetryableTransactionError(error)) throw error;
        await pause(5 + Math.random() * policy.delayAfter(retry + 1));
      }
    }
  };
}
