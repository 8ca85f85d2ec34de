// Where processing meets the delivery journal: handler runs timed and appended to their delivery's
// entry, and a replay given to `accept` recorded as an entry of its own. The entries themselves are
// built in journal/entries.ts. Nothing here runs without a `journal` option.
import type { HeldEvent } from '../book/payment-book.js';
import type { PixEvent, UnknownEvent } from '../events/event-types.js';
import type { JournalAttempt } from '../journal/delivery-journal.js';
import { attemptEntry, replayEntry } from '../journal/entries.js';
import type { JournalRecord, JournalWriter, PendingAttempt } from '../journal/journal-writer.js';
import { andThen, type MaybePromise } from '../shared/maybe-promise.js';
import type { DeliveryContext } from './delivery-context.js';
import type { AcceptResult } from './processing.js';
import type { AttemptOutcome } from './run-attempt.js';

/** One handler run, timed, then appended to delivery `id`'s entry (or, with `find`, to the entry `find` names later). */
export function timedAttempt(
  writer: JournalWriter,
  target: JournalRecord | string,
  attempt: number,
  running: () => MaybePromise<AttemptOutcome>,
  run?: JournalAttempt['run'],
): MaybePromise<AttemptOutcome> {
  return andThen(running(), recordAttempt, undefined, new TimedRun(writer, target, attempt, run));
}

/**
 * A run being timed (a class: one per handler run, handed to `andThen` instead of a closure). Once it
 * ended it is the attempt's facts: the writer builds the attempt from them after the answer.
 */
class TimedRun implements PendingAttempt {
  readonly startedAt = performance.now();
  durationMs = 0;
  outcome: AttemptOutcome | undefined = undefined;
  constructor(
    readonly writer: JournalWriter,
    readonly target: JournalRecord | string,
    readonly attempt: number,
    readonly run: JournalAttempt['run'],
  ) {}

  toAttempt(): JournalAttempt {
    return attemptEntry(this.outcome!, this.attempt, Math.round(performance.timeOrigin + this.startedAt), this.durationMs, this.run);
  }
}

function recordAttempt(outcome: AttemptOutcome, timed: TimedRun): AttemptOutcome {
  timed.durationMs = performance.now() - timed.startedAt;
  timed.outcome = outcome;
  timed.writer.attempt(timed.target, timed);
  return outcome;
}

/** A released hold's run, appended to the delivery that was held (found by resource, reason and key). */
export function timedRelease(
  writer: JournalWriter,
  held: HeldEvent,
  running: () => MaybePromise<AttemptOutcome>,
): MaybePromise<AttemptOutcome> {
  const at = Date.now();
  const startedAt = performance.now();
  return andThen(running(), (outcome) => {
    const attempt = attemptEntry(outcome, 1, at, performance.now() - startedAt, 'release');
    writer.later('appending a release', async (journal) => {
      const entries = await journal.list({ resource: held.resourceId, reason: 'held', limit: 1000 });
      const entry = entries.find((e) => e.key === held.dedupeKey);
      if (entry !== undefined) await journal.addAttempt(entry.id, attempt);
    });
    return outcome;
  });
}

/**
 * A replay handed to `accept` (`{ replayOf }`) by the CLI or the console rather than through a receiver:
 * recorded as an entry of its own, marked `replayOf`, with the answer a receiver would have given.
 */
export function journalReplay(
  writer: JournalWriter,
  event: PixEvent | UnknownEvent,
  context: DeliveryContext,
  accept: (event: PixEvent | UnknownEvent, context: DeliveryContext) => MaybePromise<AcceptResult>,
): MaybePromise<AcceptResult> {
  const arrivedAt = Date.now();
  const record = writer.open(arrivedAt);
  if (record === undefined) return accept(event, context);
  return andThen(accept(event, { ...context, journal: record }), (result) => {
    writer.add(record, () => replayEntry(record.id, arrivedAt, event, context, result));
    return result;
  });
}
