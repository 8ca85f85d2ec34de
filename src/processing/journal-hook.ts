// Where processing meets the delivery journal: handler runs timed and appended to their
// delivery's entry, and a replay given to `accept` recorded as an entry of its own. Nothing here runs
// without a `journal` option.
import type { HeldEvent } from '../book/payment-book.js';
import type { PixEvent, UnknownEvent } from '../events/event-types.js';
import type { JournalAttempt, JournalEntry } from '../journal/delivery-journal.js';
import { eventFields } from '../journal/event-fields.js';
import { journalId } from '../journal/journal-id.js';
import { isoTime } from '../journal/iso-time.js';
import type { JournalRecord, JournalWriter } from '../journal/journal-writer.js';
import { describeError } from '../shared/describe-error.js';
import { andThen, type MaybePromise } from '../shared/maybe-promise.js';
import { reasonStatus } from '../shared/reasons.js';
import type { AcceptOptions, AcceptResult } from './create-processing.js';
import type { AttemptOutcome } from './run-attempt.js';

/** What the receiver adds to the options it hands `acceptNow`: its delivery's journal record (never public). */
export interface JournalLink {
  journal?: JournalRecord | undefined;
}

export function journalRecordOf(options: AcceptOptions): JournalRecord | undefined {
  return (options as JournalLink).journal;
}

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

/** A run being timed (a class: one per handler run, handed to `andThen` instead of a closure). */
class TimedRun {
  readonly startedAt = performance.now();
  constructor(
    readonly writer: JournalWriter,
    readonly target: JournalRecord | string,
    readonly attempt: number,
    readonly run: JournalAttempt['run'],
  ) {}
}

function recordAttempt(outcome: AttemptOutcome, timed: TimedRun): AttemptOutcome {
  const { startedAt } = timed;
  timed.writer.attempt(
    timed.target,
    attemptOf(outcome, timed.attempt, Math.round(performance.timeOrigin + startedAt), startedAt, timed.run),
  );
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
    const attempt = attemptOf(outcome, 1, at, startedAt, 'release');
    writer.later('appending a release', async (journal) => {
      const entries = await journal.list({ resource: held.resourceId, reason: 'held', limit: 1000 });
      const entry = entries.find((e) => e.key === held.dedupeKey);
      if (entry !== undefined) await journal.addAttempt(entry.id, attempt);
    });
    return outcome;
  });
}

function attemptOf(outcome: AttemptOutcome, attempt: number, at: number, startedAt: number, run?: JournalAttempt['run']): JournalAttempt {
  const recorded: JournalAttempt = {
    attempt,
    at: isoTime(at),
    durationMs: Math.round((performance.now() - startedAt) * 1000) / 1000,
    outcome: outcome.ok ? 'ok' : outcome.timedOut ? 'timed_out' : outcome.claimLost ? 'claim_lost' : 'failed',
  };
  if (!outcome.ok) recorded.error = describeError(outcome.error);
  if (run !== undefined) recorded.run = run;
  return recorded;
}

/**
 * A replay handed to `accept` (`{ replayOf }`) by the CLI or the console rather than through a receiver:
 * recorded as an entry of its own, marked `replayOf`, with the answer a receiver would have given.
 */
export function journalReplay(
  writer: JournalWriter,
  event: PixEvent | UnknownEvent,
  options: AcceptOptions,
  accept: (options: AcceptOptions & JournalLink) => MaybePromise<AcceptResult>,
): MaybePromise<AcceptResult> {
  const arrivedAt = Date.now();
  const record = writer.open(journalId(arrivedAt));
  if (record === undefined) return accept(options);
  return andThen(accept({ ...options, journal: record }), (result) => {
    writer.add(record, () => replayEntry(record.id, arrivedAt, event, options, result));
    return result;
  });
}

function replayEntry(
  id: string,
  arrivedAt: number,
  event: PixEvent | UnknownEvent,
  options: AcceptOptions,
  result: AcceptResult,
): JournalEntry {
  const body = options.body ?? JSON.stringify(event.payload);
  const entry: JournalEntry = {
    id,
    at: isoTime(arrivedAt),
    verified: true,
    status: result.reason === undefined ? 200 : reasonStatus[result.reason],
    event: event.name,
    bodyBytes: new TextEncoder().encode(body).byteLength,
    body,
    attempts: [],
    ...eventFields(event),
  };
  entry.channel = 'replay';
  if (result.reason !== undefined) entry.reason = result.reason;
  if (result.key !== undefined) entry.key = result.key;
  if (options.replayOf !== undefined) entry.replayOf = options.replayOf;
  return entry;
}
