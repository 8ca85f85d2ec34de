import { describeError } from '../shared/describe-error.js';
import { withTimeout } from '../shared/with-timeout.js';
import type { Acknowledgement } from './acknowledgement.js';
import { pspJobBody, pspOf } from './queued-psp-event.js';
import type { QueuedEvent, ResolvedProcessingOptions } from './processing-options.js';

/**
 * Durable: write the verified bytes to the queue, then answer 200. Queued is as good as processed
 * for the sender, so the key is marked done at once; the queue's job id (the key) refuses a second job.
 */
export function createDurableMode(config: Pick<ResolvedProcessingOptions, 'queue' | 'storeTimeoutMs'>): Acknowledgement {
  const queue = config.queue!;
  return {
    async acknowledge(run) {
      run.hold();
      // A PSP's event is queued as read (and confirmed) at intake: the worker has neither its credentials nor its API.
      const psp = pspOf(run.event);
      const job: QueuedEvent = {
        key: run.key,
        name: run.event.name,
        body: psp === undefined ? run.body : pspJobBody(run.event),
        ...(psp !== undefined && { provider: psp }),
        source: run.event.source ?? 'webhook',
        receivedAt: new Date().toISOString(),
        ...(run.link && { trace: run.link }),
        ...(run.journal !== undefined && { journalId: run.journal.id }),
      };
      try {
        await withTimeout(
          Promise.resolve().then(() => queue.enqueue(job)),
          config.storeTimeoutMs,
          'enqueue',
        );
      } catch (error) {
        await run.release();
        run.hint = describeError(error);
        return 'enqueue_failed';
      }
      await run.markQueued();
      return undefined;
    },
    size: 0,
    idle: () => Promise.resolve(),
  };
}
