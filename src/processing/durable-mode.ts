import { describeError } from '../shared/describe-error.js';
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
    queueAsClaim: claimsOf(queue)
      ? (run) =>
          enqueue(run).then(
            (answer) => (answer === 'duplicate' ? { reason: 'duplicate', key: run.key } : { key: run.key }),
            (error: unknown) => ({ reason: 'enqueue_failed', key: run.key, hint: describeError(error) }),
          )
      : undefined,
    size: 0,
    idle: () => Promise.resolve(),
  };
}

const claimsOf = (queue: EventQueue): boolean => queue.claims === true;

/** What a job is made of: a claimed run's, or (on a queue whose add is the claim) the delivery's own, no run made. */
type JobSource = Pick<ClaimedRun, 'event' | 'key' | 'body' | 'link' | 'journal'>;

/** The run's job: its verified bytes (a PSP's event as read at intake), where it came from, its trace and journal entry. */
function jobOf(run: JobSource): QueuedEvent {
  // A PSP's event is queued as read (and confirmed) at intake: the worker has neither its credentials nor its API.
  const psp = pspOf(run.event);
  return {
    key: run.key,
    name: run.event.name,
    body: psp === undefined ? run.body : pspJobBody(run.event),
    ...(psp !== undefined && { provider: psp }),
    source: run.event.source ?? 'webhook',
    receivedAt: new Date().toISOString(),
    ...(run.link && { trace: run.link }),
    ...(run.journal !== undefined && { journalId: run.journal.id }),
  };
}
