import type { Job, Worker } from 'bullmq';
import { PixhookConfigError, PixhookError, type Logger, type Processing, type QueuedEvent } from '../index.js';
import { describeError } from '../shared/describe-error.js';
import { guardLogger } from '../shared/logger.js';
import { checkInteger, checkTimeoutMs, describeGiven, refuseRenamed } from '../shared/option-checks.js';
import { resolveRetry, type RetryOptions } from '../shared/retry-options.js';
import { backoffType, checkQueueNaming, openBounded, quietRepeats } from './durable-queue.js';
import { refuseUnknownOptions } from '../shared/known-options.js';
import { startWorkerOptionNames } from './option-names.js';
import { checkConnectTimeoutMs, openConnection, type RedisConnection } from './redis-connection.js';

export interface StartWorkerOptions {
  /**
   * The processing whose handlers run the jobs: `createProcessing()` with the same handlers as the web
   * process (no secret needed). Register them first: a processing with none is refused, since every job
   * would complete with nothing run.
   */
  processing: Pick<Processing, 'runQueued'> & Partial<Pick<Processing, 'handlerCount'>>;
  connection: RedisConnection;
  /** Must match the queue's. Default `pixhook-events`. */
  queueName?: string;
  prefix?: string;
  /** Jobs run at once by this worker. Default 10; from 1 to 1 000. */
  concurrency?: number;
  /**
   * Runs per job, first included, before it is dead-lettered, and the waits between them. Default
   * `{ attempts: 5, backoff: { delayMs: 1000, factor: 2, maxDelayMs: 300000 } }`.
   */
  retry?: RetryOptions;
  /**
   * A job whose worker stops renewing its lock (the process died) runs again elsewhere after about
   * this long. Default 30 000 ms.
   */
  lockDurationMs?: number;
  /** How often this worker looks for such stalled jobs. Default 30 000 ms. */
  stalledIntervalMs?: number;
  /** Stalls tolerated per job before it is dead-lettered. Default 2; from 0 to 100. */
  maxStalledCount?: number;
  /** How long starting waits for Redis before rejecting with `redis_unavailable`. From 100 ms to 5 minutes; default 10 000. */
  connectTimeoutMs?: number;
  logger?: Logger;
}

export interface DurableWorker {
  /** The BullMQ worker (events: `completed`, `failed`, …). */
  readonly worker: Worker<QueuedEvent>;
  /** Stops taking jobs, waits for the running ones, closes the connections pixhook opened. */
  close(): Promise<void>;
}

/** How long a job whose resource is busy waits before a worker looks again (`OrderBusyError.delayMs`, else 250 ms). */
function orderDelayMs(error: PixhookError): number {
  const delayMs = (error as PixhookError & { delayMs?: unknown }).delayMs;
  return typeof delayMs === 'number' && delayMs > 0 ? delayMs : 250;
}

const workerRetryDefaults = { attempts: 5, backoff: { delayMs: 1_000, factor: 2, maxDelayMs: 5 * 60 * 1000 } };

/** Runs queued events through `processing.runQueued`, with retries, backoff and a dead-letter state. */
export async function startWorker(options: StartWorkerOptions): Promise<DurableWorker> {
  const { Worker: BullWorker, UnrecoverableError, DelayedError } = await import('bullmq');
  const logger = guardLogger(options.logger);
  const { queueName, prefix } = checkQueueNaming(options.queueName, options.prefix);
  refuseRenamed(options, { attempts: '`retry: { attempts }`', backoff: '`retry: { backoff: { delayMs, factor, maxDelayMs } }`' });
  refuseUnknownOptions(options, startWorkerOptionNames, 'startWorker');
  const retry = resolveRetry('retry', options.retry, workerRetryDefaults);
  const attempts = retry.attempts;
  const concurrency = checkInteger('concurrency', options.concurrency, 1, 1_000, 10);
  const maxStalledCount = checkInteger('maxStalledCount', options.maxStalledCount, 0, 100, 2);
  const lockDurationMs = options.lockDurationMs === undefined ? undefined : checkTimeoutMs('lockDurationMs', options.lockDurationMs);
  const stalledIntervalMs =
    options.stalledIntervalMs === undefined ? undefined : checkTimeoutMs('stalledIntervalMs', options.stalledIntervalMs);
  const timeoutMs = checkConnectTimeoutMs('connectTimeoutMs', options.connectTimeoutMs);
  if (typeof options.processing?.runQueued !== 'function') {
    throw new PixhookConfigError(
      'pixhook: `processing` must be createProcessing() with the handlers of your web process (the same `.on(...)` calls), ' +
        `got ${describeGiven(options.processing)}.`,
    );
  }
  if (options.processing.handlerCount?.() === 0) {
    throw new PixhookConfigError(
      'pixhook: `processing` has no handlers, so every job would complete with nothing run and the event would be lost: ' +
        'register them (processing.on(...)) before startWorker.',
    );
  }
  const opened = await openConnection(options.connection, 'worker');

  async function runJob(job: Job<QueuedEvent>, token?: string): Promise<void> {
    const attempt = job.attemptsMade + 1;
    const final = attempt >= attempts;
    try {
      await options.processing.runQueued(job.data, { attempt, final });
    } catch (error) {
      // Another event of its charge runs now: back to the queue, not a failed attempt.
      if (error instanceof PixhookError && error.code === 'resource_busy') {
        await job.moveToDelayed(Date.now() + orderDelayMs(error), token);
        throw new DelayedError();
      }
      // The last attempt, or a payload that can never normalize: straight to the dead letters.
      if (final || (error instanceof PixhookError && error.code === 'payload_invalid')) {
        throw new UnrecoverableError(describeError(error));
      }
      logger.warn(
        { key: job.data.key, event: job.data.name, attempt, error: describeError(error) },
        'pixhook: queued event failed; retrying',
      );
      throw error;
    }
  }

  const worker = await openBounded(opened, { queueName, prefix }, timeoutMs, () => {
    const created = new BullWorker<QueuedEvent>(queueName, runJob, {
      connection: opened.connection,
      prefix,
      concurrency,
      ...(lockDurationMs !== undefined && { lockDuration: lockDurationMs }),
      ...(stalledIntervalMs !== undefined && { stalledInterval: stalledIntervalMs }),
      maxStalledCount,
      // Started below, once Redis has answered: a worker that cannot reach it must not run in the background.
      autorun: false,
      settings: {
        backoffStrategy: (attemptsMade: number, type?: string) => retry.delayAfter(type === backoffType ? attemptsMade : 1),
      },
    });
    created.on(
      'error',
      quietRepeats((error) => logger.warn({ queue: queueName, ...error }, 'pixhook: worker error')),
    );
    created.on('failed', (job: Job<QueuedEvent> | undefined, error: Error) => {
      // Retries and handler dead letters are logged above and by the core; this catches jobs that stalled too often.
      if (job && error.message.includes('stalled')) {
        logger.error({ key: job.data.key, event: job.data.name, error: error.message }, 'pixhook: dead-lettered after stalling');
      }
    });
    return created;
  });
  worker.run().catch((error: unknown) => logger.error({ queue: queueName, error: describeError(error) }, 'pixhook: worker stopped'));
  return {
    worker,
    async close() {
      // Running handlers may take their time; only a Redis that stopped answering is cut off.
      await worker.close();
      await opened.close();
    },
  };
}
