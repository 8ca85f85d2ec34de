import type { PixEvent } from '../events/event-types.js';
import { andThen, type MaybePromise } from '../shared/maybe-promise.js';
import { Run, type RunScope } from './claimed-run.js';
import { timedAttempt } from './journal-hook.js';
import type { QueuedEvent } from './processing-options.js';
import type { AcceptResult, QueuedRun } from './processing.js';
import { runAttempt, type AttemptOutcome } from './run-attempt.js';

/**
 * A durable job on the worker, as a claimed `Run`: it goes through the same stages as an inline delivery
 * (the resource's order, the book's judgement, the handlers, the commit), so what the book applies is applied
 * when the job's run succeeds. The dedupe key was marked done when the job was queued and BullMQ's lock guards
 * the job, so no claim is renewed or marked here; a failure is the queue's to retry.
 */
export class QueuedJob extends Run {
  /** How the handlers' run ended, once it ran. */
  outcome: AttemptOutcome | undefined = undefined;

  constructor(
    scope: RunScope,
    event: PixEvent,
    owner: string,
    readonly job: QueuedEvent,
    readonly queued: QueuedRun,
  ) {
    super(scope, event, job.key, owner, {
      body: job.body,
      waitUntil: undefined,
      trace: job.trace,
      replayOf: job.replayOf,
      journal: undefined,
    });
  }

  /** The job's run of the handlers: its attempt number, the durable time limit, appended to its delivery's journal entry. */
  override attempt(): MaybePromise<AttemptOutcome> {
    const { scope, job, queued } = this;
    const running = () =>
      runAttempt({
        handlers: scope.handlers,
        event: this.event,
        attempt: queued.attempt,
        mode: 'durable',
        source: this.event.source ?? job.source ?? 'webhook',
        limitMs: scope.config.queuedHandlerTimeoutMs,
        key: job.key,
        telemetry: scope.config.telemetry,
        link: job.trace,
      });
    const id = scope.writer && job.journalId;
    return id === undefined
      ? running()
      : timedAttempt(scope.writer!, id, queued.attempt, running, job.replayOf === undefined ? undefined : 'replay');
  }

  /** What the book stage dispatches an applied job to: its handlers, then its commit (`succeed`). */
  dispatchJob(): MaybePromise<AcceptResult> {
    return andThen(this.attempt(), (outcome) => {
      this.outcome = outcome;
      // Failed: what the book's judgement left open is given back (the queue runs the job again).
      if (!outcome.ok) return this.release().then(() => ({ reason: 'handler_failed', key: this.key }) satisfies AcceptResult);
      return andThen(this.succeed(outcome), (applied): MaybePromise<AcceptResult> => {
        if (applied) return outcome.duplicate ? { reason: 'duplicate', key: this.key } : { key: this.key };
        // The commit that held the handlers' effects failed (the Postgres inbox): nothing applied, so the job
        // fails and the queue runs it again, as after a failed handler.
        this.outcome = { ok: false, error: this.notCommitted };
        return this.release().then(() => ({ reason: 'handler_failed', key: this.key }) satisfies AcceptResult);
      });
    });
  }

  /** BullMQ's lock guards the job: no claim to renew. */
  override hold(): void {}

  /**
   * The key was marked done when the job was queued, so the store's answer is not this run's to warn about; the
   * call still ends what the book's judgement left open under the key (the Postgres inbox's transaction commits).
   */
  protected override markDone(
    onMarked: (marked: boolean, run: Run) => void,
    onFailed: (error: unknown, run: Run) => void,
  ): MaybePromise<void> {
    return super.markDone(ignore, onFailed);
  }
}

const ignore = (): void => undefined;
