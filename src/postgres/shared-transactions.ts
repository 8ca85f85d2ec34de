import { effectsRolledBack, NotCommittedError } from '../shared/not-committed.js';
import { isPromise } from '../shared/maybe-promise.js';
import { PixhookError } from '../shared/pixhook-error.js';
import type { InlineValue } from './joined-statements.js';
import { beginKept, endKept, joinedStatements, lastRows, sendWithCommit, type KeptTransaction } from './pg-database.js';
import { commitStatements } from './commit-statement.js';
import { sqlState } from './sql-state.js';
import type { IsolationLevel, SqlDatabase, SqlExecutor, SqlRow, SqlStatement } from './sql-database.js';

// The payment book's update and a transactional handler's writes in one transaction. The book opens it
// (locking the resource), decides, writes, and leaves it open under the event's dedupe key; a
// transactional handler of that event runs inside it; the inbox's store commits it when the run is
// marked done and rolls it back when the claim is given back. A failing handler rolls it back at once,
// book entry and ledger writes together. On a `pg` handle the book's work takes no round trip of its own beyond
// its first statement (sent with BEGIN): that statement also reads whether a transactional handler's default claim
// would find its key done, so the claim is answered at once (`presumed`) and written with the COMMIT; the book's
// write and the store's done mark go with the COMMIT too, in one query (the write rides with a claim that is not
// the presumed one, when one comes first). A presumed claim that another transaction made first meanwhile fails
// that query: nothing commits (`claim_lost`), as when the claim itself had found the key taken.

/** A statement of pixhook's own, whose values can be written in as literals. */
export interface DeferredStatement {
  text: string;
  values: readonly InlineValue[];
}

/** A transactional handler's claim, answered from a read in the transaction's first statement. */
interface PresumedClaim {
  /** The claim exactly as the handler sends it. */
  claim: DeferredStatement;
  /** The read found its key done: the handler will be skipped. */
  done: boolean;
  /** What is written at the COMMIT for it when it claims (the read found no row: a plain insert); default `claim`. */
  write?: DeferredStatement | undefined;
  /** `open` until the handler's claim comes; then `claimed` (written at the COMMIT) or `answered` (found done). */
  state: 'open' | 'claimed' | 'answered';
}

const sameStatement = (a: DeferredStatement, b: DeferredStatement) =>
  a.text === b.text && a.values.length === b.values.length && a.values.every((value, i) => value === b.values[i]);

interface OpenTransaction {
  tx: SqlExecutor;
  db: SqlDatabase;
  /** The book's write, not sent yet: it goes with the next statement (`first`), or before the COMMIT. */
  deferred: DeferredStatement | undefined;
  /** The handler's claim answered from the first statement's read; `claimed` once answered so: written at the COMMIT. */
  presumed: PresumedClaim | undefined;
  /** On a `pg` Pool: the transaction itself, ended here (no callback waits across the handlers). */
  kept: KeptTransaction | undefined;
  /** Otherwise (a transaction callback waiting for its end): `mark`, a statement to run in it before the COMMIT (the store's done mark). */
  finish: ((commit: boolean, mark?: DeferredStatement) => void) | undefined;
  ended: Promise<void> | undefined;
  /** Records the event again in a transaction of its own (a later attempt succeeded after a rollback). */
  redo: () => Promise<unknown>;
  /** When it was kept open (epoch ms): past `maxOpenMs` it is committed by the sweep. */
  openedAt: number;
}

export interface SharedTransactions {
  /** True once a processing pairs the book with this inbox's store (only then does anything commit it). */
  enabled: boolean;
  /**
   * Runs `body` in a new transaction. When it answers `keep`, the transaction stays open under `key`
   * until `settle`; otherwise it commits now. Resolves with the body's value once decided. A kept transaction's
   * `deferred` statement runs before anything else does in it: with its next statement (`first`) or its COMMIT.
   */
  open<T>(
    key: string,
    db: SqlDatabase,
    isolation: IsolationLevel,
    first: SqlStatement,
    body: Body<T>,
    redo: () => Promise<unknown>,
  ): Promise<T>;
  /** The open transaction of `key`, for a transactional handler. */
  take(key: string): SqlExecutor | undefined;
  /**
   * Runs `statement` first in `key`'s open transaction `tx`, the book's deferred write before it in the same round trip;
   * the presumed claim is answered without a round trip.
   */
  first(key: string, tx: SqlExecutor, statement: DeferredStatement): SqlRow[] | Promise<SqlRow[]>;
  /** Rolls back the open transaction of `key` (its handler failed); a later success records the event again. */
  fail(key: string): Promise<void>;
  /**
   * Commits (`true`) or rolls back the open transaction of `key`; resolves when it has ended: `true` when there was
   * one. A commit runs `mark` in it first (the store's done mark, committed with the book and the handler's writes).
   */
  settle(key: string, commit: boolean, mark?: DeferredStatement): Promise<boolean>;
}

const rollback = Symbol('rollback');

/** What a body decided: its value, whether its transaction stays open, and (kept) what goes with the COMMIT. */
export interface Decided<T> {
  value: T;
  keep: boolean;
  deferred?: DeferredStatement | undefined;
  presumed?: PresumedClaim | undefined;
}
type Body<T> = (tx: SqlExecutor, rows: SqlRow[]) => Decided<T> | Promise<Decided<T>>;
type Redo = () => Promise<unknown>;

// What the presumed claim answers: claimed (one row), or found taken (none). Read only by the handler's wrapper.
const claimedRows: SqlRow[] = [{ claimed: 1 }];
const noRows: SqlRow[] = [];

export function sharedTransactions(maxOpenMs: number, onLate: (key: string) => void): SharedTransactions {
  const open = new Map<string, OpenTransaction>();
  const rolledBack = new Map<string, () => Promise<unknown>>();

  // One timer for them all, not one per transaction: the map keeps them in the order they were opened, so the first
  // is the oldest. It commits those open longer than `maxOpenMs` and waits for the next.
  let sweeping: ReturnType<typeof setTimeout> | undefined;
  function sweepIn(ms: number): void {
    sweeping = setTimeout(sweep, ms);
    (sweeping as { unref?: () => void }).unref?.();
  }
  function sweep(): void {
    sweeping = undefined;
    const now = Date.now();
    for (const [key, entry] of open) {
      const left = entry.openedAt + maxOpenMs - now;
      if (left > 0) return sweepIn(left);
      onLate(key);
      end(key, true).catch(() => {});
    }
  }

  async function end(key: string, commit: boolean, mark?: DeferredStatement): Promise<boolean> {
    const entry = open.get(key);
    if (entry === undefined) return false;
    open.delete(key);
    if (entry.kept === undefined) {
      entry.finish!(commit, mark);
      await entry.ended;
      return true;
    }
    if (!commit) {
      await endKept(entry.kept, false);
      return true;
    }
    try {
      await endKept(entry.kept, true, commitStatementsOf(entry, mark));
    } catch (error) {
      throw notCommitted(entry, error);
    }
    return true;
  }

  /** What goes with the COMMIT: the book's write (when still unsent), the presumed claim, the done mark; folded where they fold. */
  function commitStatementsOf(entry: OpenTransaction, mark: DeferredStatement | undefined): DeferredStatement[] {
    const claim = entry.presumed?.state === 'claimed' ? (entry.presumed.write ?? entry.presumed.claim) : undefined;
    const statements = commitStatements(entry.deferred, claim, mark);
    entry.deferred = undefined;
    return statements;
  }

  /**
   * The statements still to run before the COMMIT (folded into one where they can be: commit-statement.ts): sent with
   * it, in one query, where the handle allows.
   */
  async function beforeCommit(entry: OpenTransaction, mark: DeferredStatement | undefined): Promise<void> {
    const statements = commitStatementsOf(entry, mark);
    if (statements.length === 0 || sendWithCommit(entry.db, entry.tx, statements)) return;
    for (const statement of statements) await entry.tx.query(statement.text, [...statement.values]);
  }

  /**
   * Why a kept transaction did not commit. A presumed claim that found its key taken at the commit: the claim was
   * lost (another transaction committed the effects: they were applied by it). Anything else (a serialization
   * failure, a deferred statement, the connection lost): the handler's writes, the book's and the done mark were
   * all rolled back, so the run is not applied (`NotCommittedError`: processing answers a retryable error).
   * A connection lost during the COMMIT itself leaves the outcome unknown; a retry is still safe, because the done
   * mark commits with the effects or not at all: the retry finds the key done (duplicate) or free (runs once).
   */
  function notCommitted(entry: OpenTransaction | undefined, error: unknown): unknown {
    if (entry?.presumed?.state !== 'claimed' || sqlState(error) !== '22012') return new NotCommittedError(error);
    return new PixhookError('claim_lost', 'pixhook: another transaction marked this event’s effects done first; nothing was committed');
  }

  /** The statement, the book's deferred write (when still unsent) with it in the same round trip. */
  async function sendFirst(entry: OpenTransaction | undefined, tx: SqlExecutor, statement: DeferredStatement): Promise<SqlRow[]> {
    const deferred = entry?.tx === tx ? entry.deferred : undefined;
    if (entry === undefined || deferred === undefined) return (await tx.query(statement.text, [...statement.values])).rows;
    entry.deferred = undefined;
    const joined = joinedStatements(entry.db, tx, [deferred, statement]);
    if (joined !== undefined) return lastRows(await joined);
    await tx.query(deferred.text, [...deferred.values]);
    return (await tx.query(statement.text, [...statement.values])).rows;
  }

  /** Keeps `entry` open under `key`, at the map's end (the newest). */
  function keep(key: string, entry: OpenTransaction): void {
    open.delete(key);
    open.set(key, entry);
    if (sweeping === undefined) sweepIn(maxOpenMs);
  }

  /** On a `pg` Pool: the transaction begun, the body run, and (kept) left open; `end` commits or rolls it back. */
  async function openKept<T>(key: string, db: SqlDatabase, began: Promise<KeptTransaction>, body: Body<T>, redo: Redo): Promise<T> {
    const kept = await began;
    let decided: Decided<T>;
    try {
      const answer = body(kept.tx, kept.rows);
      decided = isPromise(answer) ? await answer : answer;
    } catch (error) {
      await endKept(kept, false);
      throw error;
    }
    if (!decided.keep) {
      await endKept(kept, true);
      return decided.value;
    }
    const { deferred, presumed } = decided;
    keep(key, { tx: kept.tx, db, deferred, presumed, kept, finish: undefined, ended: undefined, redo, openedAt: Date.now() });
    return decided.value;
  }

  /** On any other handle: the transaction's callback waits, once kept, until `end` tells it to commit or roll back. */
  function openWaiting<T>(
    key: string,
    db: SqlDatabase,
    isolation: IsolationLevel,
    first: SqlStatement,
    body: Body<T>,
    redo: Redo,
  ): Promise<T> {
    let endedOk!: () => void;
    let endedFailed!: (error: unknown) => void;
    const ended = new Promise<void>((ok, fail) => ((endedOk = ok), (endedFailed = fail)));
    ended.catch(() => {});
    return new Promise((resolve, reject) => {
      // Kept open: the caller hears the decision now, before the commit.
      let answered = false;
      let kept: OpenTransaction | undefined;
      const run = async (tx: SqlExecutor, rows: SqlRow[]) => {
        const { value, keep: keepIt, deferred, presumed } = await body(tx, rows);
        if (!keepIt) return value;
        let finish!: (commit: boolean, mark?: DeferredStatement) => void;
        const finished = new Promise<{ commit: boolean; mark: DeferredStatement | undefined }>(
          (done) => (finish = (commit, mark) => done({ commit, mark })),
        );
        const entry: OpenTransaction = { tx, db, deferred, presumed, kept: undefined, finish, ended, redo, openedAt: Date.now() };
        kept = entry;
        keep(key, entry);
        answered = true;
        resolve(value);
        const { commit, mark } = await finished;
        if (!commit) throw rollback;
        // The book's write, when no statement came to carry it, and the done mark: now, before the COMMIT.
        await beforeCommit(entry, mark);
        return value;
      };
      const transaction = db.transactionWith
        ? db.transactionWith(isolation, first, run)
        : db.transaction(isolation, async (tx) => run(tx, (await tx.query(first.text, first.values)).rows));
      transaction.then(
        (value) => {
          if (!answered) resolve(value);
          endedOk();
        },
        (error: unknown) => {
          if (!answered) reject(error);
          if (error === rollback) endedOk();
          else endedFailed(notCommitted(kept, error));
        },
      );
    });
  }

  return {
    enabled: false,
    open(key, db, isolation, first, body, redo) {
      const began = beginKept(db, isolation, first);
      return began === undefined ? openWaiting(key, db, isolation, first, body, redo) : openKept(key, db, began, body, redo);
    },
    take: (key) => open.get(key)?.tx,
    first(key, tx, statement) {
      const entry = open.get(key);
      const presumed = entry?.tx === tx ? entry.presumed : undefined;
      if (presumed !== undefined && sameStatement(presumed.claim, statement)) {
        // As the claim would answer: claimed the first time (unless done), then found taken (by this transaction).
        // Answered at once (no promise of its own: this is every transactional handler's path).
        const claimed = presumed.state === 'open' && !presumed.done;
        if (presumed.state === 'open') presumed.state = claimed ? 'claimed' : 'answered';
        return claimed ? claimedRows : noRows;
      }
      return sendFirst(entry, tx, statement);
    },
    async fail(key) {
      const entry = open.get(key);
      if (entry === undefined) return;
      rolledBack.set(key, entry.redo);
      await end(key, false).catch(() => {});
    },
    async settle(key, commit, mark) {
      const redo = rolledBack.get(key);
      rolledBack.delete(key);
      if (commit && redo !== undefined) await redo();
      const entry = open.get(key);
      try {
        return await end(key, commit, mark);
      } catch (error) {
        // Nothing committed: as after a failed handler, a later success (a background retry) records the event again.
        if (commit && entry !== undefined && effectsRolledBack(error)) rolledBack.set(key, entry.redo);
        throw error;
      }
    },
  };
}
