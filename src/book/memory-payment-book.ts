import {
  asDuplicateHold,
  checkDedupeKey,
  checkNote,
  checkTrail,
  disputesWithAge,
  recordAt,
  recordInput,
  wantsClosed,
} from './book-arguments.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import { checkInteger } from '../shared/option-checks.js';
import { applyStep, dismissStep, recordStep, releaseRefusal, releaseStep, toBookResource, type ResourceState } from './book-state.js';
import { checkExpectation } from './check-expectation.js';
import type { PixEvent } from '../events/event-types.js';
import type { HeldEvent, PaymentBook, RecordContext } from './payment-book.js';
import type { Committed, Judged, PaymentBookBackend } from './joined-claim.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

export interface MemoryPaymentBookOptions {
  /**
   * Resources (charges and transfers) remembered. Default 100 000. Beyond it the least recently written
   * resource is evicted: its timeline and state are gone, and a later event for it is judged as if first
   * seen. Open held events and resources with an open dispute are kept whatever the bound.
   */
  max?: number;
  /** Timeline entries kept per resource; the oldest drop first. Default 100. */
  maxTimeline?: number;
  /** The clock, epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

/** The memory book answers through promises like every backend, and tells how much it holds. */
export interface MemoryPaymentBook extends PaymentBook {
  /** Resources held now, those kept for an open dispute included. */
  readonly size: number;
}

/**
 * The payment book in this process only (instances behind a load balancer each have their own; use the
 * Redis or Postgres book to share one). Every change to one resource runs after the previous one has
 * finished (a promise chain per resource), so two deliveries for one charge never interleave.
 */
export function memoryPaymentBook(options: MemoryPaymentBookOptions = {}): MemoryPaymentBook {
  refuseUnknownOptions(options, memoryPaymentBookOptionNames, 'memoryPaymentBook');
  const max = checkInteger('max', options.max, 1, 100_000_000, 100_000);
  const maxTimeline = checkInteger('maxTimeline', options.maxTimeline, 1, 100_000, 100);
  const now = options.now ?? Date.now;
  if (typeof now !== 'function') throw new PixhookConfigError('pixhook: `now` must be a function returning epoch milliseconds.');

  // Insertion order is write order: the first key is the least recently written.
  const resources = new Map<string, ResourceState>();
  // Evicted resources with an open dispute: a dispute's deadline must not be forgotten.
  const pinned = new Map<string, ResourceState>();
  const withDisputes = new Set<string>();
  const held = new Map<string, HeldEvent>();
  // `<resource key>\n<dedupe key>` → the open held id: a retry of a held event finds its hold.
  const openHeldByKey = new Map<string, string>();
  // Released and dismissed ids, oldest first, so their answers (`already_released`, `dismissed`) stay bounded.
  const closedHeld = new Set<string>();
  let expectationsInUse = false;
  const chains = new Map<string, Promise<void>>();

  /** Runs `task` after every earlier task for `key` has settled; a failure does not block the next. */
  function serialize<T>(key: string, task: () => T): Promise<T> {
    const previous = chains.get(key);
    // Nothing pending for this resource: the (synchronous) task runs to its end now, so no chain is needed.
    if (previous === undefined) {
      try {
        return Promise.resolve(task());
      } catch (error) {
        return Promise.reject(error as Error);
      }
    }
    const result = previous.then(task);
    const tail = result.then(noop, noop);
    chains.set(key, tail);
    void tail.then(() => {
      if (chains.get(key) === tail) chains.delete(key);
    });
    return result;
  }

  function read(key: string): ResourceState | undefined {
    return resources.get(key) ?? (pinned.size === 0 ? undefined : pinned.get(key));
  }

  /** Writes `state` as the newest; `previous`, what `read(key)` gave in this turn (undefined: the key is in neither map). */
  // Counts writes: a commit that finds none since its judgement knows its resource is the one it judged, unread.
  let writes = 0;
  function write(key: string, state: ResourceState, previous: ResourceState | undefined = read(key)): void {
    if (previous !== undefined) {
      if (pinned.size > 0) pinned.delete(key);
      resources.delete(key);
    }
    resources.set(key, state);
    writes++;
    if (state.disputes.length > 0) withDisputes.add(key);
    else if (withDisputes.size > 0) withDisputes.delete(key);
    if (resources.size > max) evict();
  }

  // Walks the map in write order for good: a written resource moves behind it, an evicted one is a hole it never
  // passes again (a fresh `entries()` would skip every hole left since the map last compacted, on every eviction).
  let oldest: IterableIterator<string> | undefined;
  function evict(): void {
    while (resources.size > max) {
      oldest ??= resources.keys();
      const next = oldest.next();
      if (next.done === true) {
        oldest = undefined;
        continue;
      }
      const oldestKey = next.value;
      // Only a resource with disputes can have an open one: the others are dropped without being read.
      const state = withDisputes.size > 0 && withDisputes.has(oldestKey) ? resources.get(oldestKey) : undefined;
      resources.delete(oldestKey);
      if (state === undefined) continue;
      if (state.disputes.some((dispute) => dispute.open)) pinned.set(oldestKey, state);
      else withDisputes.delete(oldestKey);
    }
  }

  function close(entry: HeldEvent): void {
    held.set(entry.heldId, entry);
    openHeldByKey.delete(heldKey(entry));
    closedHeld.add(entry.heldId);
    while (closedHeld.size > max) {
      const oldest = closedHeld.values().next().value as string;
      closedHeld.delete(oldest);
      held.delete(oldest);
    }
  }

  const heldKey = (entry: HeldEvent) => memoryKey(entry.kind, entry.resourceId) + '\n' + entry.dedupeKey;

  /**
   * One `record`, inside the resource's turn; `judging`, an apply is returned with its commit instead of written.
   * The resource is looked up once: the commit finds the same state unless another step wrote it meanwhile.
   */
  function recordNow(event: PixEvent, key: string, context: RecordContext, judging = false): Judged {
    const openHeldId = openHeldByKey.size === 0 ? undefined : openHeldByKey.get(key + '\n' + context.dedupeKey);
    const resource = read(key);
    const seen = writes;
    const input = recordInput(event, context, recordAt(context, now), {
      resource,
      expectationsInUse,
      openHeld: openHeldId === undefined ? undefined : held.get(openHeldId),
      newHeldId,
      maxTimeline,
    });
    const step = recordStep(input);
    const { result } = step;
    if (judging && result.outcome === 'apply') {
      const { violations } = result;
      // In place and synchronous: with an in-process store, the done mark and the lease follow in the same turn.
      const commit = (): Committed => {
        const current = writes === seen ? resource : read(key);
        // Unchanged since judged (under the order lease, always): the judged step is the commit.
        const next = current === resource ? step.resource : applyStep({ ...input, resource: current }, violations);
        if (next !== undefined) write(key, next, current);
        return committed;
      };
      return { outcome: 'apply', violations, commit };
    }
    write(key, step.resource, resource);
    if (step.held !== undefined) {
      held.set(step.held.heldId, step.held);
      openHeldByKey.set(heldKey(step.held), step.held.heldId);
    }
    return step.result;
  }

  const book: MemoryPaymentBook & PaymentBookBackend = {
    get size() {
      return resources.size + pinned.size;
    },

    async get(id) {
      const state = read(memoryKey('transaction', id)) ?? read(memoryKey('transfer', id));
      return state === undefined ? undefined : toBookResource(state);
    },

    async expect(charge) {
      const expected = checkExpectation(charge);
      const key = memoryKey('transaction', charge.id);
      await serialize(key, () => {
        const state = read(key) ?? { id: charge.id, kind: 'transaction' as const, timeline: [], payments: [], disputes: [] };
        write(key, { ...state, expected });
        expectationsInUse = true;
      });
    },

    async held(filter) {
      const closed = wantsClosed(filter);
      const listed: HeldEvent[] = [];
      for (const entry of held.values()) {
        const open = entry.state === 'held' || entry.state === 'releasing';
        if (open !== closed) listed.push(structuredClone(entry));
      }
      return listed;
    },

    async heldEvent(heldId) {
      const entry = held.get(heldId);
      return entry === undefined ? undefined : structuredClone(entry);
    },

    async dismiss(heldId, note, options) {
      checkNote(note);
      const { by } = checkTrail(options);
      const found = held.get(heldId);
      if (found === undefined) return { ok: false, reason: 'not_found' };
      const key = memoryKey(found.kind, found.resourceId);
      return serialize(key, () => {
        const entry = held.get(heldId);
        if (entry === undefined) return { ok: false, reason: 'not_found' } as const;
        if (entry.state === 'dismissed') return { ok: false, reason: 'dismissed' } as const;
        if (entry.state !== 'held') return { ok: false, reason: 'already_released' } as const;
        const step = dismissStep(read(key), entry, note, now(), maxTimeline, by);
        if (step.resource !== undefined) write(key, step.resource);
        close(step.held);
        return { ok: true } as const;
      });
    },

    async disputes(filter = {}) {
      return disputesWithAge(
        Array.from(withDisputes, (key) => read(key)?.disputes ?? []),
        filter,
        now(),
      );
    },

    async record(event, context) {
      checkDedupeKey(context);
      const resource = event.kind === 'transaction' ? event.transaction : event.transfer;
      const key = memoryKey(event.kind, resource.id);
      return serialize(key, () => recordNow(event, key, context));
    },

    // Synchronous while nothing else of the resource is pending: the pipeline then runs the handlers in this turn.
    judge(event, context) {
      checkDedupeKey(context);
      const resource = event.kind === 'transaction' ? event.transaction : event.transfer;
      const key = memoryKey(event.kind, resource.id);
      return chains.size > 0 && chains.has(key)
        ? serialize(key, () => recordNow(event, key, context, true))
        : recordNow(event, key, context, true);
    },

    async retryOfHeld(event, context) {
      const resource = event.kind === 'transaction' ? event.transaction : event.transfer;
      const key = memoryKey(event.kind, resource.id);
      const heldKey = key + '\n' + String(context?.dedupeKey);
      if (!openHeldByKey.has(heldKey)) return undefined;
      return serialize(key, () => {
        if (!openHeldByKey.has(heldKey)) return undefined;
        const result = recordNow(event, key, context);
        return asDuplicateHold(result);
      });
    },

    async claimRelease(heldId) {
      const found = held.get(heldId);
      if (found === undefined) return { ok: false, reason: 'not_found' };
      return serialize(memoryKey(found.kind, found.resourceId), () => {
        const entry = held.get(heldId);
        if (entry === undefined) return { ok: false, reason: 'not_found' } as const;
        if (entry.state === 'dismissed') return { ok: false, reason: 'dismissed' } as const;
        if (entry.state !== 'held') return { ok: false, reason: 'already_released' } as const;
        const refused = releaseRefusal(read(memoryKey(entry.kind, entry.resourceId)), entry);
        if (refused !== undefined) return { ok: false, reason: refused } as const;
        const claimed: HeldEvent = { ...entry, state: 'releasing' };
        held.set(heldId, claimed);
        return { ok: true, held: structuredClone(claimed) } as const;
      });
    },

    async finishRelease(heldId, ok, trail) {
      const checked = checkTrail(trail);
      const found = held.get(heldId);
      if (found === undefined) return false;
      const key = memoryKey(found.kind, found.resourceId);
      return serialize(key, () => {
        const entry = held.get(heldId);
        if (entry === undefined || entry.state !== 'releasing') return false;
        const step = releaseStep(read(key), entry, ok === true, now(), maxTimeline, checked);
        if (step.resource !== undefined) write(key, step.resource);
        if (step.held.state === 'released') close(step.held);
        else held.set(heldId, step.held);
        return true;
      });
    },

    // A memory release never lapses (one process: a crash loses the book with it), so it is always still the caller's.
    async renewRelease(heldId) {
      return held.get(heldId)?.state === 'releasing';
    },
  };
  return book;
}

function noop(): void {}

/**
 * The memory book's key of a resource: a charge's own id (no string is made per delivery); a transfer, or a
 * charge whose id starts with U+0001, that mark, a kind letter and the id, so no two resources share a key.
 */
function memoryKey(kind: 'transaction' | 'transfer', id: string): string {
  if (kind === 'transaction') return id.charCodeAt(0) === 1 ? '\u0001t' + id : id;
  return '\u0001o' + id;
}

const newHeldId = (): string => 'held_' + crypto.randomUUID();

const committed = Object.freeze({});

/** Every option memoryPaymentBook takes. */
const memoryPaymentBookOptionNames = optionNames<MemoryPaymentBookOptions>()(['max', 'maxTimeline', 'now']);
