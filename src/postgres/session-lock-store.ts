import type { ClaimResult, DedupeStore } from '../index.js';
import { effectsRolledBack } from '../shared/not-committed.js';
import { PixhookError } from '../shared/pixhook-error.js';
import type { InboxNames } from './inbox-schema.js';
import type { SqlDatabase, SqlExecutor } from './sql-database.js';

/** The dedupe store on Postgres: `inbox.store`. */
export interface PostgresDedupeStore extends DedupeStore {
  /** Claims this process holds now. */
  readonly held: number;
  /** Gives back every claim and the lock connection. */
  close(): Promise<void>;
}

/** The connection our session locks live on; they end with it. */
interface LockSession {
  readonly connection: SqlExecutor;
  readonly generation: number;
  alive: boolean;
  /** Ends the session: `true` hands the connection back (locks released first), `false` destroys it. */
  end(clean: boolean): void;
  lastPingAt: number;
  ping: Promise<boolean> | undefined;
  /** Statements on the lock connection go one at a time (pg 9 drops its implicit queue). */
  tail: Promise<unknown>;
  /** Rejects when the connection is gone: a statement waiting on a dead connection must not hang. */
  readonly gone: Promise<never>;
}

interface HeldClaim {
  owner: string;
  generation: number;
  /** Set once the claim is confirmed (`claimed` was answered). */
  confirmed: boolean;
  /** `complete` is marking the key: the lock stays held (and the claim listed) until the mark has committed. */
  finishing: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
}

const deliveryScope = 'delivery';

/** The store's done mark of a claim it holds (`$1` scope, `$2` key, `$3` TTL in ms). */
export function markStatementText(names: InboxNames): string {
  return `INSERT INTO ${names.table} (scope, key, expires_at) VALUES ($1, $2, now() + $3::double precision * interval '1 millisecond')
    ON CONFLICT (scope, key) DO UPDATE SET done_at = now(), expires_at = EXCLUDED.expires_at`;
}

/** The done mark of a claim this store holds, for a statement or transaction of another's to commit. */
interface FoldedMark {
  /** The mark as a statement of its own. */
  readonly statement: { text: string; values: readonly (string | number)[] };
  /** The inbox table and the row's scope, key and TTL, for a statement that writes the row itself. */
  readonly table: string;
  readonly scope: string;
  readonly key: string;
  readonly ttlMs: number;
}

/** Internal: marks a key done inside another's commit (the payment book's); see `markerOf`. */
interface DoneMarker {
  /** The database the store writes its marks to. */
  readonly db: SqlDatabase;
  /**
   * `commit` writes the mark with its own work and answers whether it committed both; then the claim ends as
   * `complete` ends it (`true`). `false` (nothing committed) leaves the claim as it was. `undefined`: not a claim
   * this store holds on its live connection; `commit` was not called. A `commit` that rejects with the effects
   * rolled back (`effectsRolledBack`) keeps the claim, its TTL running, for the run to retry or give back.
   */
  completeWith(key: string, owner: string, ttlMs: number, commit: (mark: FoldedMark) => Promise<boolean>): Promise<boolean | undefined>;
}

const markers = new WeakMap<object, DoneMarker>();

/** The done marker of a Postgres dedupe store (the inbox's), when `store` is one. */
export function markerOf(store: object | undefined): DoneMarker | undefined {
  return store === undefined ? undefined : markers.get(store);
}

/** `store` (a wrapper of the inbox's store) marks as the store it wraps does. */
export function shareMarker(store: object, wrapped: object): void {
  const marker = markers.get(wrapped);
  if (marker !== undefined) markers.set(store, marker);
}

/**
 * Claims are **session advisory locks** (`pg_try_advisory_lock`) on one connection this store holds,
 * keyed by a 64-bit hash of the inbox and the key; "done" is a committed row. A process that dies
 * closes its connection, and Postgres drops the session's locks with it at once: the sender's next
 * attempt finds the key free, with no TTL to wait out. A Postgres restart drops every lock too, and
 * the runs that held them are told they lost their claim (`extend` → false). A connection that
 * vanishes without closing (a host lost, not a process) keeps its locks until the server's TCP
 * keepalive gives up: set `keepAlive: true` on the pool. A claim this process stops renewing (its run
 * was abandoned) is unlocked locally after its TTL.
 *
 * Session locks are re-entrant: this process's own connection would be granted a lock it already holds.
 * So a key is listed in `held` from its first claim statement until its unlock is queued, and a second
 * claim of a listed key never asks for the lock: it reads the done row instead (`done`, else `in_flight`),
 * so concurrent retries of a finished key are all duplicates and never take the lock twice.
 */
export function sessionLockStore(db: SqlDatabase, names: InboxNames, scope = deliveryScope): PostgresDedupeStore {
  const held = new Map<string, HeldClaim>();
  const doneSql = `SELECT 1 FROM ${names.table} WHERE scope = $2 AND key = $3 AND expires_at > now()`;
  const claimSql = `SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked, EXISTS (${doneSql}) AS done`;
  // A second statement after the lock: its snapshot is taken after we hold it, so a run that just
  // committed and unlocked is seen as done (the first statement's snapshot may predate that commit).
  const recheckSql = `SELECT d.done, CASE WHEN d.done THEN pg_advisory_unlock(hashtextextended($1, 0)) END AS unlocked FROM (SELECT EXISTS (${doneSql}) AS done) d`;
  const isDoneSql = `SELECT EXISTS (SELECT 1 FROM ${names.table} WHERE scope = $1 AND key = $2 AND expires_at > now()) AS done`;
  const unlockSql = 'SELECT pg_advisory_unlock(hashtextextended($1, 0)) AS unlocked';
  const markSql = markStatementText(names);
  // Nobody holds the claim here: take the lock for this one statement, so a holder elsewhere wins.
  const markUnheldSql = `WITH l AS (SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked)
    INSERT INTO ${names.table} (scope, key, expires_at) SELECT $2, $3, now() + $4::double precision * interval '1 millisecond' FROM l WHERE l.locked
    ON CONFLICT (scope, key) DO UPDATE SET done_at = now(), expires_at = EXCLUDED.expires_at RETURNING 1 AS marked`;
  const lockKey = (key: string) => names.lockSpace + key;

  let generation = 0;
  let session: LockSession | undefined;
  let opening: Promise<LockSession> | undefined;

  function kill(s: LockSession, error: unknown): void {
    if (!s.alive) return;
    s.alive = false;
    if (session === s) session = undefined;
    for (const [key, claim] of held) {
      if (claim.generation === s.generation) {
        clearTimeout(claim.timer);
        held.delete(key);
      }
    }
    void error;
    s.end(false);
  }

  function open(): Promise<LockSession> {
    const gen = ++generation;
    return new Promise<LockSession>((resolve, reject) => {
      let opened: LockSession | undefined;
      const ended = db.session(
        (connection, closed) =>
          new Promise<void>((finish, fail) => {
            let lost!: (error: Error) => void;
            const gone = new Promise<never>((_, reject) => (lost = reject));
            gone.catch(() => {});
            void closed.then(() => lost(new Error('pixhook: the lock connection closed')));
            opened = {
              gone,
              connection,
              generation: gen,
              alive: true,
              end: (clean) => {
                lost(new Error('pixhook: the lock connection was ended'));
                if (clean) finish();
                else fail(new Error('pixhook: lock session ended'));
              },
              lastPingAt: Date.now(),
              ping: undefined,
              tail: Promise.resolve(),
            };
            session = opened;
            void closed.then(() => opened && kill(opened, new Error('connection closed')));
            resolve(opened);
          }),
      );
      ended.then(
        () => opened && kill(opened, new Error('session ended')),
        (error: unknown) => {
          if (opened) kill(opened, error);
          else reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  async function current(): Promise<LockSession> {
    if (session?.alive) return session;
    opening ??= open().finally(() => (opening = undefined));
    return opening;
  }

  function run(s: LockSession, text: string, values: unknown[]): Promise<Record<string, unknown>> {
    const statement = s.tail.then(async () => {
      try {
        if (!s.alive) throw new PixhookError('postgres_unavailable', 'pixhook: the lock connection is gone');
        const { rows } = await Promise.race([s.connection.query(text, values), s.gone]);
        return rows[0] ?? {};
      } catch (error) {
        // We cannot tell which locks a failed statement left behind: end the connection, and with it all of them.
        kill(s, error);
        throw error;
      }
    });
    s.tail = statement.catch(() => {});
    return statement;
  }

  function expireLater(key: string, claim: HeldClaim, ttlMs: number): void {
    clearTimeout(claim.timer);
    if (claim.finishing) return;
    // A claim nobody renews (its run was abandoned, e.g. after a store timeout) is given back after its TTL.
    claim.timer = setTimeout(() => {
      if (held.get(key) !== claim) return;
      held.delete(key);
      if (session?.alive && session.generation === claim.generation) run(session, unlockSql, [lockKey(key)]).catch(() => {});
    }, ttlMs);
    (claim.timer as { unref?: () => void }).unref?.();
  }

  function ping(s: LockSession, everyMs: number): Promise<boolean> {
    if (Date.now() - s.lastPingAt < everyMs) return Promise.resolve(s.alive);
    s.ping ??= run(s, 'SELECT 1', [])
      .then(
        () => {
          s.lastPingAt = Date.now();
          return s.alive;
        },
        () => false,
      )
      .finally(() => (s.ping = undefined));
    return s.ping;
  }

  const store: PostgresDedupeStore = {
    get held() {
      return held.size;
    },
    async claim(key, owner, ttlMs): Promise<ClaimResult> {
      // Another claim of this key is in progress here (or its run is): it holds, or is taking, the lock.
      // Asking for the lock again would be granted (re-entrant), so read whether the key is done instead.
      if (held.has(key)) {
        const s = await current();
        return (await run(s, isDoneSql, [scope, key]))['done'] === true ? 'done' : 'in_flight';
      }
      const claim: HeldClaim = { owner, generation: 0, confirmed: false, finishing: false, timer: undefined };
      held.set(key, claim);
      try {
        const s = await current();
        claim.generation = s.generation;
        const first = await run(s, claimSql, [lockKey(key), scope, key]);
        if (first['locked'] !== true) return first['done'] === true ? 'done' : 'in_flight';
        const again = await run(s, recheckSql, [lockKey(key), scope, key]);
        if (again['done'] === true) return 'done';
        if (!s.alive || held.get(key) !== claim) return 'in_flight';
        claim.confirmed = true;
        expireLater(key, claim, ttlMs);
        return 'claimed';
      } finally {
        if (!claim.confirmed && held.get(key) === claim) held.delete(key);
      }
    },
    async complete(key, owner, ttlMs) {
      const claim = held.get(key);
      if (claim && claim.owner !== owner) return false;
      const s = session;
      if (claim) {
        clearTimeout(claim.timer);
        if (s?.alive && s.generation === claim.generation) {
          // Listed until the mark has committed: a claim of the key meanwhile must not re-take our own lock.
          claim.finishing = true;
          try {
            await db.query(markSql, [scope, key, ttlMs]);
          } finally {
            // After the commit, never before: a claimer that gets the lock next must see the row. The
            // unlock is queued in the same tick as the delete, ahead of any later claim statement.
            if (held.get(key) === claim) {
              held.delete(key);
              await run(s, unlockSql, [lockKey(key)]).catch(() => {});
            }
          }
          return true;
        }
        held.delete(key);
      }
      const { rows } = await db.query(markUnheldSql, [lockKey(key), scope, key, ttlMs]);
      return rows.length > 0;
    },
    async release(key, owner) {
      const claim = held.get(key);
      // While `complete` commits the mark, the lock must stay until that commit: `complete` unlocks it.
      if (!claim || claim.owner !== owner || claim.finishing) return;
      held.delete(key);
      clearTimeout(claim.timer);
      const s = session;
      // On failure the session is ended, which releases the lock as well.
      if (s?.alive && s.generation === claim.generation) await run(s, unlockSql, [lockKey(key)]).catch(() => {});
    },
    async extend(key, owner, ttlMs) {
      const claim = held.get(key);
      const s = session;
      if (!claim?.confirmed || claim.owner !== owner || !s?.alive || s.generation !== claim.generation) return false;
      expireLater(key, claim, ttlMs);
      // One round trip proves the connection (and so every lock on it) is still there; shared by all claims.
      return (await ping(s, ttlMs / 4)) && held.get(key) === claim;
    },
    async close() {
      for (const claim of held.values()) clearTimeout(claim.timer);
      held.clear();
      const s = session;
      if (!s?.alive) return;
      s.alive = false;
      session = undefined;
      try {
        await s.tail;
        await Promise.race([s.connection.query('SELECT pg_advisory_unlock_all()'), s.gone]);
        s.end(true);
      } catch {
        s.end(false);
      }
    },
  };
  markers.set(store, {
    db,
    async completeWith(key, owner, ttlMs, commit) {
      const claim = held.get(key);
      const s = session;
      if (claim?.confirmed !== true || claim.owner !== owner || !s?.alive || s.generation !== claim.generation) return undefined;
      // As `complete`: listed, and locked, until the mark has committed.
      clearTimeout(claim.timer);
      claim.finishing = true;
      let marked = false;
      let failed: unknown;
      try {
        const mark = { statement: { text: markSql, values: [scope, key, ttlMs] }, table: names.table, scope, key, ttlMs };
        marked = await commit(mark);
      } catch (error) {
        failed = error;
      }
      claim.finishing = false;
      if (failed !== undefined && effectsRolledBack(failed) && held.get(key) === claim) {
        // Nothing committed, the handlers' effects neither: the run is not applied. It keeps its claim (under its
        // TTL, as any claim) to run again (background) or to give back (inline: the sender's retry runs it).
        expireLater(key, claim, ttlMs);
        throw failed;
      }
      // Committed, or another transaction marked the key done first (`claim_lost`): the claim ends as `complete`
      // ends it; the next claimer finds the key done.
      if ((marked || failed !== undefined) && held.get(key) === claim) {
        held.delete(key);
        await run(s, unlockSql, [lockKey(key)]).catch(() => {});
      }
      if (failed !== undefined) throw failed;
      return marked;
    },
  });
  return store;
}
