import {
  asDuplicateHold,
  checkDedupeKey,
  recordAt,
  recordInput,
  checkExpectation,
  checkNote,
  checkTrail,
  claimedHeld,
  closedReason,
  currentHeld,
  dismissStep,
  disputesWithAge,
  type HeldEvent,
  type PaymentBookBackend,
  ownsRelease,
  applyStep,
  type Judged,
  type PaymentBook,
  type PendingApply,
  type RecordContext,
  type RecordResult,
  recordStep,
  releaseRefusal,
  releaseStep,
  renewedHeld,
  resourceKey,
  type ResourceState,
  type StoredHeld,
  toBookResource,
  wantsClosed,
} from '../book/backend.js';
import { randomUUID } from 'node:crypto';
import type { PixEvent } from '../index.js';
import { checkInteger } from '../shared/option-checks.js';
import { PixhookConfigError, PixhookError } from '../shared/pixhook-error.js';
import { bookNames, bookSchemaSql, type BookTableOptions } from './book-schema.js';
import { bookStatements } from './book-statements.js';
import { commitTexts } from './commit-statement.js';
import { sameDatabase, toSqlDatabase, type PostgresHandle } from './pg-database.js';
import { markerOf } from './session-lock-store.js';
import { inboxLink, type PostgresInbox } from './postgres-inbox.js';
import type { Decided, DeferredStatement } from './shared-transactions.js';
import type { SqlExecutor, SqlRow } from './sql-database.js';
import { refuseUnknownOptions } from '../shared/known-options.js';
import { postgresPaymentBookOptionNames } from './option-names.js';

export interface PostgresPaymentBookOptions extends BookTableOptions {
  /** A `pg` Pool (the reference), a connected `pg` Client, or a `SqlDatabase` (`fromPostgresJs`, `fromKysely`, `fromDrizzle`). */
  db: PostgresHandle;
  /**
   * The inbox whose store the processing uses. Given, the book's update of an event the handlers will
   * run stays in an open transaction: `inbox.transactional` handlers write inside it, and it commits
   * when the event is marked done (rolls back when a handler throws), so the ledger and the book commit together.
   */
  inbox?: PostgresInbox;
  /** Timeline entries kept per resource; the oldest drop first. Default 100. */
  maxTimeline?: number;
  /** How long a release may run before its event is held again for another release (a crashed releaser). Default 10 minutes. */
  releaseLeaseMs?: number;
  /** The clock, epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

export interface PostgresPaymentBook extends PaymentBook {
  /** Creates the book's tables if missing (safe from several instances at once). */
  migrate(): Promise<void>;
  /** The DDL `migrate()` runs, for your own migration tool. */
  schemaSql(): string;
}

/**
 * The payment book in Postgres. Each change to a resource runs in a transaction that first locks the
 * resource's row (an upsert, which takes the row lock whether or not it existed): two instances receiving
 * `paid` and `refunded` of one charge at once take turns. The decision is the pure step every book shares.
 */
export function postgresPaymentBook(options: PostgresPaymentBookOptions): PostgresPaymentBook {
  refuseUnknownOptions(options, postgresPaymentBookOptionNames, 'postgresPaymentBook');
  if (options?.db === undefined || options.db === null) {
    throw new PixhookConfigError('pixhook: `db` must be a pg Pool, a connected pg Client or a SqlDatabase.');
  }
  const db = toSqlDatabase(options.db);
  const names = bookNames(options);
  const ddl = bookSchemaSql(options);
  const maxTimeline = checkInteger('maxTimeline', options.maxTimeline, 1, 100_000, 100);
  const leaseMs = checkInteger('releaseLeaseMs', options.releaseLeaseMs, 1_000, 24 * 3_600_000, 10 * 60_000);
  const now = options.now ?? Date.now;
  if (typeof now !== 'function') throw new PixhookConfigError('pixhook: `now` must be a function returning epoch milliseconds.');
  const link = options.inbox === undefined ? undefined : inboxLink(options.inbox);
  if (options.inbox !== undefined && link === undefined) throw new PixhookConfigError('pixhook: `inbox` must be a postgresInbox().');
  const owners = new Map<string, string>();

  const { lockSql, sharedLockSql, writeSql, heldSql, updateHeldSql, resourceSql, saveSql, casSql, markedCasSql, readSql } = bookStatements(
    names,
    link?.claimDoneSql,
  );
  // What goes with a kept transaction's COMMIT (the write, the claim, the done mark; folded where they fold), prepared with its first statement.
  const companions = link === undefined ? [] : commitTexts(saveSql, link.claimTexts, link.markText);

  /** One record, in `tx` (whose first statement `lockSql` answered `rows`). */
  function decide(event: PixEvent, context: RecordContext, rows: SqlRow[]) {
    const row = rows[0] ?? {};
    const at = recordAt(context, now);
    const openHeld = typeof row['open_held'] === 'string' ? (JSON.parse(row['open_held']) as HeldEvent) : undefined;
    const input = recordInput(event, context, at, {
      resource: typeof row['state'] === 'string' ? (JSON.parse(row['state']) as ResourceState) : undefined,
      expectationsInUse: row['expecting'] === true,
      openHeld,
      newHeldId: () => 'held_' + randomUUID(),
      maxTimeline,
    });
    const { resource, result, held } = recordStep(input);
    return { resource, result, held, input, read: typeof row['state'] === 'string' ? row['state'] : null };
  }

  /**
   * The commit of an event judged `apply` without the inbox: one statement, a compare-and-set on the state the
   * judgement read (under the order lease it lands at once). The run marks the event done after it: book first,
   * then the done mark, so a crash between them leaves the fact applied and its retry answered `duplicate`.
   */
  function pendingApply(rk: string, step: ReturnType<typeof decide>, violations: RecordResult['violations']): PendingApply {
    return async (mark) => {
      // The processing's store is the inbox's, on this database: the apply and the done mark are one statement.
      const marker = markerOf(mark.store);
      if (marker !== undefined && sameDatabase(marker.db, db) && step.resource !== undefined) {
        const applied = step.resource;
        const folded = await marker.completeWith(mark.key, mark.owner, mark.ttlMs, async (done) => {
          const values = [rk, JSON.stringify(applied), applied.disputes.length > 0, step.read, done.scope, done.key, done.ttlMs];
          return (await db.query(markedCasSql(done.table), values)).rows.length > 0;
        });
        if (folded === true) return { marked: true };
      }
      let read = step.read;
      for (let round = 0; round < 50; round++) {
        // Unchanged since judged (under the order lease, the first round): the judged step is the commit.
        const next =
          read === step.read
            ? step.resource
            : applyStep({ ...step.input, resource: read === null ? undefined : (JSON.parse(read) as ResourceState) }, violations);
        if (next === undefined) return {};
        const { rows } = await db.query(casSql, [rk, JSON.stringify(next), next.disputes.length > 0, read]);
        if (rows.length > 0) return {};
        const current = (await db.query(`SELECT state FROM ${names.resources} WHERE key = $1`, [rk])).rows[0]?.['state'];
        read = typeof current === 'string' ? current : null;
      }
      throw new PixhookError('store_unavailable', 'payment book: the resource kept changing under this commit; retry later');
    };
  }

  function writeOf(rk: string, step: ReturnType<typeof decide>): DeferredStatement {
    const held = step.held;
    // No hold (an apply: the write that goes with the COMMIT): the update alone, with no INSERT into the held table.
    if (held === undefined) return { text: saveSql, values: [rk, JSON.stringify(step.resource), step.resource.disputes.length > 0] };
    const values = [
      rk,
      JSON.stringify(step.resource),
      step.resource.disputes.length > 0,
      held.heldId,
      held.dedupeKey,
      JSON.stringify(held),
    ];
    return { text: writeSql, values };
  }

  /**
   * `judging` (the pipeline's, without the inbox): an apply is not written; it comes back with its commit. Not an async
   * function (its promise is the transaction's, no wrapper around it): what throws here (a bad `dedupeKey`) rejects.
   */
  function recordIn(event: PixEvent, context: RecordContext, onlyRetry: boolean, judging = false): Promise<Judged | undefined> {
    try {
      checkDedupeKey(context);
      return recordInTransaction(event, context, onlyRetry, judging);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  function recordInTransaction(event: PixEvent, context: RecordContext, onlyRetry: boolean, judging: boolean): Promise<Judged | undefined> {
    const current = event.kind === 'transaction' ? event.transaction : event.transfer;
    const rk = resourceKey(event.kind, current.id);
    const shared = !onlyRetry && link?.shared.enabled === true;
    // Kept open: what goes with its COMMIT is prepared with it, as its companions (joined-statements.ts).
    const first = shared
      ? { text: sharedLockSql, values: [rk, context.dedupeKey], companions }
      : { text: lockSql, values: [rk, context.dedupeKey] };
    // Not async: a kept apply is answered at once (no promise of its own); only a write sent now is awaited.
    const body = (tx: SqlExecutor, rows: SqlRow[]): Decided<Judged | undefined> | Promise<Decided<Judged | undefined>> => {
      if (onlyRetry && typeof rows[0]?.['open_held'] !== 'string') return { value: undefined, keep: false };
      const step = decide(event, context, rows);
      if (judging && step.result.outcome === 'apply' && link?.shared.enabled !== true) {
        return { value: { ...step.result, commit: pendingApply(rk, step, step.result.violations) } as Judged, keep: false };
      }
      const keep = step.result.outcome === 'apply';
      const statement = writeOf(rk, step);
      // Kept open (the inbox's transaction): the write goes with the COMMIT (or a claim sent before it); the
      // handler's claim is answered from what the first statement read.
      // `claim_done`: true (done), false (a row whose TTL ran out: the claim as the handler sends it takes it over), null (no row).
      const found = rows[0]?.['claim_done'];
      if (keep && shared) {
        const claim = link.claimOf(context.dedupeKey);
        const write = found === false ? undefined : { text: link.freshClaimText, values: claim.values };
        const presumed = { claim, done: found === true, write, state: 'open' as const };
        return { value: step.result as Judged | undefined, keep, deferred: statement, presumed };
      }
      return tx.query(statement.text, [...statement.values]).then(() => ({ value: step.result as Judged | undefined, keep }));
    };
    if (shared) {
      const redo = () => recordIn(event, context, false);
      return link.shared.open(context.dedupeKey, db, 'read committed', first, body, redo);
    }
    const run = async (tx: SqlExecutor, rows: SqlRow[]) => (await body(tx, rows)).value;
    return db.transactionWith
      ? db.transactionWith('read committed', first, run)
      : db.transaction('read committed', async (tx) => run(tx, (await tx.query(first.text, first.values)).rows));
  }

  /** Locks a held event (and, for `withResource`, its resource), then runs `fn` in that transaction. */
  function withHeld<T>(heldId: string, fn: (tx: SqlExecutor, stored: StoredHeld | undefined) => Promise<T>): Promise<T> {
    return db.transaction('read committed', async (tx) => {
      const { rows } = await tx.query(heldSql, [heldId]);
      return fn(tx, rows[0] === undefined ? undefined : storedOf(rows[0]));
    });
  }

  function storedOf(row: SqlRow): StoredHeld {
    const stored: StoredHeld = { held: JSON.parse(String(row['data'])) as HeldEvent };
    if (typeof row['owner'] === 'string') stored.owner = row['owner'];
    if (row['lease_until'] !== null && row['lease_until'] !== undefined) stored.leaseUntil = Number(row['lease_until']);
    return stored;
  }

  async function saveHeld(tx: SqlExecutor, stored: StoredHeld): Promise<void> {
    const { held } = stored;
    await tx.query(updateHeldSql, [held.heldId, held.state, stored.owner ?? null, stored.leaseUntil ?? null, JSON.stringify(held)]);
  }

  /** The held event's resource, locked: after the held row (the order every path takes). */
  async function lockedResource(tx: SqlExecutor, held: HeldEvent): Promise<{ rk: string; state: ResourceState | undefined }> {
    const rk = resourceKey(held.kind, held.resourceId);
    const { rows } = await tx.query(resourceSql, [rk]);
    const state = rows[0]?.['state'];
    return { rk, state: typeof state === 'string' ? (JSON.parse(state) as ResourceState) : undefined };
  }

  async function saveResource(tx: SqlExecutor, rk: string, state: ResourceState | undefined): Promise<void> {
    if (state !== undefined) await tx.query(saveSql, [rk, JSON.stringify(state), state.disputes.length > 0]);
  }

  /** `judge` without the inbox: an apply is judged from one read (see `judge`); any other outcome under the row lock. */
  async function judgeAlone(event: PixEvent, context: RecordContext): Promise<Judged> {
    checkDedupeKey(context);
    const current = event.kind === 'transaction' ? event.transaction : event.transfer;
    const rk = resourceKey(event.kind, current.id);
    const step = decide(event, context, (await db.query(readSql, [rk, context.dedupeKey])).rows);
    if (step.result.outcome === 'apply') return { ...step.result, commit: pendingApply(rk, step, step.result.violations) };
    return (await recordIn(event, context, false, true)) as Judged;
  }

  const book: PostgresPaymentBook & PaymentBookBackend = {
    async get(id) {
      const { rows } = await db.query(`SELECT key, state FROM ${names.resources} WHERE key = ANY($1::text[]) AND state IS NOT NULL`, [
        [resourceKey('transaction', id), resourceKey('transfer', id)],
      ]);
      const row = rows.find((r) => r['key'] === resourceKey('transaction', id)) ?? rows[0];
      return row === undefined ? undefined : toBookResource(JSON.parse(String(row['state'])) as ResourceState);
    },

    async expect(charge) {
      const expected = checkExpectation(charge);
      const rk = resourceKey('transaction', charge.id);
      await db.transaction('read committed', async (tx) => {
        const { rows } = await tx.query(
          `INSERT INTO ${names.resources} AS r (key) VALUES ($1) ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key RETURNING r.state`,
          [rk],
        );
        const stored = rows[0]?.['state'];
        const state: ResourceState =
          typeof stored === 'string'
            ? (JSON.parse(stored) as ResourceState)
            : { id: charge.id, kind: 'transaction', timeline: [], payments: [], disputes: [] };
        await tx.query(saveSql, [rk, JSON.stringify({ ...state, expected }), state.disputes.length > 0]);
        await tx.query(`INSERT INTO ${names.flags} (name, value) VALUES ('expecting', '1') ON CONFLICT (name) DO NOTHING`);
      });
    },

    async held(filter) {
      const closed = wantsClosed(filter);
      const at = now();
      const { rows } = await db.query(
        closed
          ? `SELECT data, owner, lease_until FROM ${names.held} WHERE state IN ('released', 'dismissed') ORDER BY closed_at, seq`
          : `SELECT data, owner, lease_until FROM ${names.held} WHERE state IN ('held', 'releasing') ORDER BY seq`,
      );
      return rows.map((row) => currentHeld(storedOf(row), at));
    },

    async heldEvent(heldId) {
      const { rows } = await db.query(`SELECT data, owner, lease_until FROM ${names.held} WHERE held_id = $1`, [heldId]);
      return rows[0] === undefined ? undefined : currentHeld(storedOf(rows[0]), now());
    },

    async dismiss(heldId, note, options) {
      checkNote(note);
      const { by } = checkTrail(options);
      return withHeld(heldId, async (tx, stored) => {
        const at = now();
        const reason = closedReason(stored, at);
        if (reason !== undefined || stored === undefined) return { ok: false, reason: reason ?? 'not_found' } as const;
        const { rk, state } = await lockedResource(tx, stored.held);
        const step = dismissStep(state, currentHeld(stored, at), note, at, maxTimeline, by);
        await saveResource(tx, rk, step.resource);
        await saveHeld(tx, { held: step.held });
        return { ok: true } as const;
      });
    },

    async disputes(filter = {}) {
      const { rows } = await db.query(`SELECT state FROM ${names.resources} WHERE has_disputes`);
      const lists = rows.map((row) => (JSON.parse(String(row['state'])) as ResourceState).disputes);
      return disputesWithAge(lists, filter, now());
    },

    record: (event, context) => recordIn(event, context, false) as Promise<RecordResult>,

    // With the inbox, the apply stays in the book's open transaction, which commits with the done mark (shared-transactions.ts).
    // Without it, an apply is judged from one read (under the order lease; its commit is a compare-and-set on what
    // was read); any other outcome is judged again under the row lock, where a hold is written.
    judge(event, context) {
      // Kept open for the handlers: the transaction's own promise, no async wrapper around it.
      if (link?.shared.enabled === true) return recordIn(event, context, false, true) as Promise<Judged>;
      return judgeAlone(event, context);
    },

    async retryOfHeld(event, context) {
      if (typeof context?.dedupeKey !== 'string' || context.dedupeKey === '') return undefined;
      const result = await recordIn(event, context, true);
      return asDuplicateHold(result);
    },

    async claimRelease(heldId) {
      const owner = randomUUID();
      const claim = await withHeld(heldId, async (tx, stored) => {
        const at = now();
        const reason = closedReason(stored, at);
        if (reason !== undefined || stored === undefined) return { ok: false, reason: reason ?? 'not_found' } as const;
        const refused = releaseRefusal((await lockedResource(tx, stored.held)).state, stored.held);
        if (refused !== undefined) return { ok: false, reason: refused } as const;
        const claimed = claimedHeld(stored, owner, at, leaseMs);
        await saveHeld(tx, claimed);
        return { ok: true, held: claimed.held, leaseMs } as const;
      });
      if (claim.ok) owners.set(heldId, owner);
      return claim;
    },

    async finishRelease(heldId, ok, trail) {
      const checked = checkTrail(trail);
      const owner = owners.get(heldId);
      owners.delete(heldId);
      return withHeld(heldId, async (tx, stored) => {
        if (!ownsRelease(stored, owner)) return false;
        const { rk, state } = await lockedResource(tx, stored.held);
        const step = releaseStep(state, stored.held, ok === true, now(), maxTimeline, checked);
        await saveResource(tx, rk, step.resource);
        await saveHeld(tx, { held: step.held });
        return true;
      });
    },

    async renewRelease(heldId) {
      const owner = owners.get(heldId);
      return withHeld(heldId, async (tx, stored) => {
        const renewed = renewedHeld(stored, owner, now(), leaseMs);
        if (renewed === undefined) return false;
        await saveHeld(tx, renewed);
        return true;
      });
    },

    async migrate() {
      await db.transaction('read committed', async (tx) => {
        await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${names.lockSpace}migrate`]);
        for (const statement of ddl.split(/;\n/)) {
          const text = statement.replace(/--.*$/gm, '').trim().replace(/;$/, '');
          if (text !== '') await tx.query(text);
        }
      });
    },
    schemaSql: () => ddl,

    // The processing tells the book its store: with the inbox's own store, records stay open for the handlers.
    joinClaim(store) {
      if (link !== undefined && store === link.store) link.shared.enabled = true;
      return undefined;
    },
  };
  return book;
}
