import { describeError } from '../shared/describe-error.js';
import { isPromise } from '../shared/maybe-promise.js';
import { PixhookTimeoutError } from '../shared/pixhook-error.js';
import { withTimeout } from '../shared/with-timeout.js';
import type { Acknowledgement, ClaimedRun } from './acknowledgement.js';
import type { AcceptResult } from './processing.js';
import { pspJobBody, pspOf } from './queued-psp-event.js';
import type { EventQueue, QueuedEvent, ResolvedProcessingOptions } from './processing-options.js';

/** Durable mode's acknowledgement, and with a queue whose add is the claim, the whole intake of an event. */
interface DurableMode extends Acknowledgement {
  /**
   * Set when the queue `claims` (`createDurableQueue`'s): queues the unclaimed run's job in one step that is also
   * its claim, and answers: 200 when queued, `duplicate` when the key's job is already held, `enqueue_failed`
   * when the queue could not say (the sender's retry then finds the job, or queues it).
   */
  readonly queueAsClaim: ((job: JobSource) => Promise<AcceptResult>) | undefined;
}

/**
 * Durable: write the verified bytes to the queue, then answer 200. Queued is as good as processed for the
 * sender. A queue that `claims` needs no other step (`queueAsClaim`); with any other, the store's claim comes
 * first (`acknowledge` runs on a claimed run) and the key is marked done once queued.
 */
export function createDurableMode(config: Pick<ResolvedProcessingOptions, 'queue' | 'storeTimeoutMs'>): DurableMode {
  const queue = config.queue!;
  const enqueue = (run: JobSource): Promise<void | 'duplicate'> => {
    let adding: Promise<void | 'duplicate'>;
    try {
      // Promise.resolve: the same promise when it is one; a custom queue that returns nothing still counts as queued.
      adding = Promise.resolve(queue.enqueue(jobOf(run)));
    } catch (error) {
      adding = Promise.reject(error as Error);
    }
    return withTimeout(adding, config.storeTimeoutMs, 'enqueue');
  };
  return {
    async acknowledge(run) {
      run.hold();
      try {
        await enqueue(run);
      } catch (error) {
        await run.release();
        run.hint = describeError(error);
        return 'enqueue_failed';
      }
      await run.markQueued();
      return undefined;
    },
    queueAsClaim: claimsOf(queue) ? (run) => queueClaiming(queue, run, config.storeTimeoutMs) : undefined,
    size: 0,
    idle: () => Promise.resolve(),
  };
}

const claimsOf = (queue: EventQueue): boolean => queue.claims === true;

/**
 * The add that is the claim, answered: 200 when queued, `duplicate` when the key's job is held, `enqueue_failed`
 * when it throws, rejects or takes longer than `ms` (as `withTimeout` bounds it). One promise and one timer per
 * event, the answer made where the add settles (not a bound's promise, then a mapping `then`).
 */
function queueClaiming(queue: EventQueue, run: JobSource, ms: number): Promise<AcceptResult> {
  return new Promise<AcceptResult>((resolve) => {
    const failed = (error: unknown) => resolve({ reason: 'enqueue_failed', key: run.key, hint: describeError(error) });
    let adding: Promise<void | 'duplicate'> | void | 'duplicate';
    try {
      adding = queue.enqueue(jobOf(run));
    } catch (error) {
      return failed(error);
    }
    // A custom queue that returns nothing (or no promise) still counts as queued.
    if (!isPromise(adding)) return resolve(answerOf(adding, run.key));
    const timer = setTimeout(() => failed(new PixhookTimeoutError(`enqueue took longer than ${ms} ms`)), ms);
    (timer as { unref?: () => void }).unref?.();
    adding.then(
      (answer) => {
        clearTimeout(timer);
        resolve(answerOf(answer, run.key));
      },
      (error: unknown) => {
        clearTimeout(timer);
        failed(error);
      },
    );
  });
}

const answerOf = (answer: void | 'duplicate', key: string): AcceptResult =>
  answer === 'duplicate' ? { reason: 'duplicate', key } : { key };

/** What a job is made of: a claimed run's, or (on a queue whose add is the claim) the delivery's own, no run made. */
type JobSource = Pick<ClaimedRun, 'event' | 'key' | 'body' | 'link' | 'journal'>;

/** The run's job: its verified bytes (a PSP's event as read at intake), where it came from, its trace and journal entry. */
function jobOf(run: JobSource): QueuedEvent {
  // A PSP's event is queued as read (and confirmed) at intake: the worker has neither its credentials nor its API.
  const psp = pspOf(run.event);
  // Built field by field (not with conditional spreads, which copy an object per field): one job per event.
  const job: QueuedEvent = {
    key: run.key,
    name: run.event.name,
    body: psp === undefined ? run.body : pspJobBody(run.event),
    source: run.event.source ?? 'webhook',
    receivedAt: new Date().toISOString(),
  };
  if (psp !== undefined) job.provider = psp;
  if (run.link) job.trace = run.link;
  if (run.journal !== undefined) job.journalId = run.journal.id;
  return job;
}
