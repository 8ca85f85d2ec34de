import { joinedStatements, lastRows, type InlineValue } from './pg-database.js';
import type { IsolationLevel, SqlDatabase, SqlExecutor, SqlRow, SqlStatement } from './sql-database.js';

// The payment book's update and a transactional handler's writes in one transaction. The book opens it
// (locking the resource), decides, writes, and leaves it open under the event's dedupe key; a
// transactional handler of that event runs inside it; the inbox's store commits it when the run is
// marked done and rolls it back when the claim is given back. A failing handler rolls it back at once,
// book entry and ledger writes together. On a `pg` handle the book's write is not a round trip of its own: it
// is sent with the transaction's next statement (the handler's claim), or before the COMMIT when none comes.

/** A statement of pixhook's own, whose values can be written in as literals. */
export interface DeferredStatement {
  text: string;
  values: readonly InlineValue[];
}

interface OpenTransaction {
  tx: SqlExecutor;
  db: SqlDatabase;
  /** The book's write, not sent yet: it goes with the next statement (`first`), or before the COMMIT. */
  deferred: DeferredStatement | undefined;
  /** `mark`: a statement to run in it before the COMMIT (the store's done mark). */
  finish: (commit: boolean, mark?: DeferredStatement) => void;
  ended: Promise<void>;
  /** Records the event again in a transaction of its own (a later attempt succeeded after a rollback). */
  redo: () => Promise<unknown>;
  timer: ReturnType<typeof setTimeout>;
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
    body: (tx: SqlExecutor, rows: SqlRow[]) => Promise<{ value: T; keep: boolean; deferred?: DeferredStatement | undefined }>,
    redo: () => Promise<unknown>,
  ): Promise<T>;
  /** The open transaction of `key`, for a transactional handler. */
  take(key: string): SqlExecutor | undefined;
  /** Runs `statement` first in `key`'s open transaction `tx`, the book's deferred write before it in the same round trip. */
  first(key: string, tx: SqlExecutor, statement: DeferredStatement): Promise<SqlRow[]>;
  /** Rolls back the open transaction of `key` (its handler failed); a later success records the event again. */
  fail(key: string): Promise<void>;
  /**
   * Commits (`true`) or rolls back the open transaction of `key`; resolves when it has ended: `true` when there was
   * one. A commit runs `mark` in it first (the store's done mark, committed with the book and the handler's writes).
   */
  settle(key: string, commit: boolean, mark?: DeferredStatement): Promise<boolean>;
}

const rollback = Symbol('rollback');

export function sharedTransactions(maxOpenMs: number, onLate: (key: string) => void): SharedTransactions {
  const open = new Map<string, OpenTransaction>();
  const rolledBack = new Map<string, () => Promise<unknown>>();

  async function end(key: string, commit: boolean, mark?: DeferredStatement): Promise<boolean> {
    const entry = open.get(key);
    if (entry === undefined) return false;
    open.delete(key);
    clearTimeout(entry.timer);
    entry.finish(commit, mark);
    await entry.ended;
    return true;
  }

  /** The statements still to run before the COMMIT, in one round trip where the handle allows. */
  async function beforeCommit(entry: OpenTransaction, mark: DeferredStatement | undefined): Promise<void> {
    const statements = [entry.deferred, mark].filter((statement) => statement !== undefined);
    entry.deferred = undefined;
    if (statements.length === 0) return;
    const joined = statements.length > 1 ? joinedStatements(entry.db, statements) : undefined;
    if (joined !== undefined) await entry.tx.query(joined);
    else for (const statement of statements) await entry.tx.query(statement.text, [...statement.values]);
  }

  return {
    enabled: false,
    open(key, db, isolation, first, body, redo) {
      let endedOk!: () => void;
      let endedFailed!: (error: unknown) => void;
      const ended = new Promise<void>((ok, fail) => ((endedOk = ok), (endedFailed = fail)));
      ended.catch(() => {});
      return new Promise((resolve, reject) => {
        // Kept open: the caller hears the decision now, before the commit.
        let answered = false;
        const run = async (tx: SqlExecutor, rows: SqlRow[]) => {
          const { value, keep, deferred } = await body(tx, rows);
          if (!keep) return value;
          let finish!: (commit: boolean, mark?: DeferredStatement) => void;
          const finished = new Promise<{ commit: boolean; mark: DeferredStatement | undefined }>(
            (done) => (finish = (commit, mark) => done({ commit, mark })),
          );
          const timer = setTimeout(() => {
            onLate(key);
            end(key, true).catch(() => {});
          }, maxOpenMs);
          (timer as { unref?: () => void }).unref?.();
          const entry: OpenTransaction = { tx, db, deferred, finish, ended, redo, timer };
          open.set(key, entry);
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
            else endedFailed(error);
          },
        );
      });
    },
    take: (key) => open.get(key)?.tx,
    async first(key, tx, statement) {
      const entry = open.get(key);
      const deferred = entry?.tx === tx ? entry.deferred : undefined;
      if (entry === undefined || deferred === undefined) return (await tx.query(statement.text, [...statement.values])).rows;
      entry.deferred = undefined;
      const joined = joinedStatements(entry.db, [deferred, statement]);
      if (joined !== undefined) return lastRows(await tx.query(joined));
      await tx.query(deferred.text, [...deferred.values]);
      return (await tx.query(statement.text, [...statement.values])).rows;
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
      return end(key, commit, mark);
    },
  };
}
