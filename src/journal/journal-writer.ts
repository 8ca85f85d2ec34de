import { describeError } from '../shared/describe-error.js';
import type { Logger } from '../shared/logger.js';
import { checkObject } from '../shared/option-checks.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import type { DeliveryJournal, JournalAttempt, JournalEntry } from './delivery-journal.js';
import { journalIdAt, nextJournalSeq } from './journal-id.js';

/** One journal call the writer will not wait past: a hung journal frees its batch and is counted. */
export const journalCallTimeoutMs = 5_000;
/** Entries and attempts waiting to be written, at most: past it new ones are dropped and counted. */
export const maxBacklog = 10_000;

/** An attempt whose entry is built when the writer writes it (after the answer), not when the run ended. */
export interface PendingAttempt {
  toAttempt(): JournalAttempt;
}

/**
 * A delivery between its arrival and its write: handed from the receiver to processing with the
 * delivery, so a handler run before the write joins the entry with no lookup. Its id is built when
 * first read (the write, a durable job), from the arrival time and the counter taken on arrival.
 */
export class JournalRecord {
  readonly attempts: PendingAttempt[] = [];
  /** True once the entry went to the journal: later runs become `addAttempt`. */
  written = false;
  build: (() => JournalEntry) | undefined = undefined;
  readonly #seq = nextJournalSeq();
  #id: string | undefined = undefined;
  constructor(readonly arrivedAt: number) {}

  get id(): string {
    return (this.#id ??= journalIdAt(this.arrivedAt, this.#seq));
  }
}

/**
 * The receiver's and processing's way to a `DeliveryJournal`, off the hot path. `open` and `add` only
 * queue; the queue is written after the answer (one batch per `setImmediate`), batches one after another
 * so an attempt is never written before its delivery. A handler run of a delivery not yet written
 * joins its entry; a later one becomes `addAttempt`. A journal that throws, rejects or hangs never
 * reaches the caller: each failure is logged and counted (`failures`).
 */
export class JournalWriter {
  readonly #journal: DeliveryJournal;
  readonly #log: Logger;
  readonly #keepAlive: (work: Promise<unknown>) => void;
  /** Records opened and not yet written. */
  #open = 0;
  #adds: JournalRecord[] = [];
  #attempts: { id: string; attempt: PendingAttempt }[] = [];
  #tail: Promise<void> = Promise.resolve();
  #scheduled = false;
  #inFlight = 0;
  #chained = 0;
  #overflowing = false;
  /**
   * Durable mode only: open records by id. A worker in this process can run a job before the receiver
   * answered (the job is in Redis before the answer), and its run, known by id, must join the entry.
   */
  readonly #byId: Map<string, JournalRecord> | undefined;
  failures = 0;

  constructor(journal: DeliveryJournal, log: Logger, keepAlive: (work: Promise<unknown>) => void, indexById = false) {
    this.#journal = journal;
    this.#log = log;
    this.#keepAlive = keepAlive;
    this.#byId = indexById ? new Map() : undefined;
  }

  /** Starts the record of a delivery that arrived at `arrivedAt` (ms); undefined when the backlog is full (the delivery goes unrecorded, counted). */
  open(arrivedAt: number): JournalRecord | undefined {
    if (this.#backlog() >= maxBacklog) return void this.#overflow();
    this.#open++;
    const record = new JournalRecord(arrivedAt);
    this.#byId?.set(record.id, record);
    return record;
  }

  /** The delivery was answered: its entry is built and written after this turn. */
  add(record: JournalRecord, build: () => JournalEntry): void {
    record.build = build;
    this.#adds.push(record);
    this.#schedule();
  }

  /** A handler run: joins its record when not yet written, else appended (a durable worker's runs, by id). */
  attempt(target: JournalRecord | string, attempt: PendingAttempt): void {
    if (typeof target === 'string') target = this.#byId?.get(target) ?? target;
    if (typeof target !== 'string' && !target.written) {
      target.attempts.push(attempt);
      return;
    }
    if (this.#backlog() >= maxBacklog) return void this.#overflow();
    this.#attempts.push({ id: typeof target === 'string' ? target : target.id, attempt });
    this.#schedule();
  }

  /** Runs `work` against the journal after the queued writes (a release finding its delivery), guarded like them. */
  later(what: string, work: (journal: DeliveryJournal) => Promise<void>): void {
    this.#chain(async () => {
      try {
        await this.#bounded(
          Promise.resolve().then(() => work(this.#journal)),
          what,
        );
      } catch (error) {
        this.#report(error, what);
      }
    });
  }

  /** True while something is queued or being written. */
  get busy(): boolean {
    return this.#scheduled || this.#inFlight > 0 || this.#chained > 0;
  }

  /** Resolves once everything queued so far is written (or failed). */
  idle(): Promise<void> {
    if (this.#scheduled) this.#flush();
    return this.#tail;
  }

  #backlog(): number {
    return this.#open + this.#attempts.length + this.#inFlight;
  }

  #overflow(): false {
    this.failures++;
    if (!this.#overflowing) {
      this.#overflowing = true;
      this.#log.error({ backlog: maxBacklog }, 'pixhook: the journal is not keeping up; deliveries go unrecorded until it does');
    }
    return false;
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    later(() => this.#flush());
  }

  #flush(): void {
    if (!this.#scheduled) return;
    this.#scheduled = false;
    const entries: JournalEntry[] = [];
    for (const record of this.#adds) {
      record.written = true;
      this.#open--;
      this.#byId?.delete(record.id);
      try {
        const entry = record.build!();
        if (record.attempts.length > 0) {
          const joined = record.attempts.map(toAttempt);
          entry.attempts = entry.attempts.length === 0 ? joined : [...entry.attempts, ...joined];
        }
        entries.push(entry);
      } catch (error) {
        this.#report(error, 'building an entry');
      }
    }
    const attempts = this.#attempts;
    this.#adds = [];
    this.#attempts = [];
    const size = entries.length + attempts.length;
    if (size === 0) return;
    this.#inFlight += size;
    this.#chain(async () => {
      const journal = this.#journal;
      await this.#settle(
        entries.map((entry) => call(() => journal.add(entry))),
        'add',
      );
      await this.#settle(
        attempts.map(({ id, attempt }) => call(() => journal.addAttempt(id, attempt.toAttempt()))),
        'addAttempt',
      );
      this.#inFlight -= size;
      if (this.#overflowing && this.#backlog() === 0) this.#overflowing = false;
    });
  }

  #chain(step: () => Promise<void>): void {
    this.#chained++;
    const next = this.#tail.then(step, step).finally(() => void this.#chained--);
    this.#tail = next;
    this.#keepAlive(next);
  }

  /** Waits for the calls, at most `journalCallTimeoutMs` in all; each failure is reported. */
  async #settle(calls: Promise<void>[], what: string): Promise<void> {
    if (calls.length === 0) return;
    let failed = 0;
    let first: unknown;
    const counted = calls.map((running) =>
      running.catch((error: unknown) => {
        if (failed++ === 0) first = error;
      }),
    );
    try {
      await this.#bounded(Promise.all(counted), `${what} (${calls.length})`);
    } catch (error) {
      // Timed out: the calls still running are abandoned and count as failed.
      this.failures += calls.length - failed;
      this.#report(error, what, false);
    }
    if (failed > 0) {
      this.failures += failed;
      this.#log.error(
        { error: describeError(first), failed },
        `pixhook: the journal failed to ${what === 'add' ? 'record deliveries' : 'record handler attempts'}`,
      );
    }
  }

  #bounded<T>(running: Promise<T>, what: string): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the journal's ${what} took longer than ${journalCallTimeoutMs} ms`)),
        journalCallTimeoutMs,
      );
      (timer as { unref?: () => void }).unref?.();
    });
    return Promise.race([running, timeout]).finally(() => clearTimeout(timer));
  }

  #report(error: unknown, what: string, count = true): void {
    if (count) this.failures++;
    this.#log.error({ error: describeError(error) }, `pixhook: the journal failed (${what})`);
  }
}

const toAttempt = (pending: PendingAttempt): JournalAttempt => pending.toAttempt();

/** A journal call whose synchronous throw becomes a rejection. */
function call(run: () => Promise<void>): Promise<void> {
  try {
    return Promise.resolve(run());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** After the current I/O (the answer is written first); a plain timer where `setImmediate` is absent (Workers). */
const later: (run: () => void) => void =
  typeof setImmediate === 'function' ? (run) => void setImmediate(run) : (run) => void setTimeout(run, 0);

const journalMethods = ['add', 'addAttempt', 'get', 'list', 'subscribe'] as const;

/** The `journal` option: a `DeliveryJournal` (e.g. `memoryJournal()`), or absent. */
export function checkJournal(value: unknown): DeliveryJournal | undefined {
  if (value === undefined) return undefined;
  const journal = checkObject<Record<string, unknown>>('journal', value, 'a delivery journal (e.g. memoryJournal())');
  const missing = journalMethods.filter((name) => typeof journal[name] !== 'function');
  if (missing.length > 0) {
    throw new PixhookConfigError(
      `pixhook: \`journal\` must be a delivery journal (e.g. memoryJournal()), got an object without ${missing.join(', ')}`,
    );
  }
  return value as DeliveryJournal;
}
