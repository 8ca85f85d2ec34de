import type { Job, Worker } from 'bullmq';
import { describeError, PixhookConfigError, PixhookError, type Logger, type Processing, type QueuedEvent } from '../index.js';
import { guardLogger } from '../shared/logger.js';
import { backoffType, defaultQueueName, jobAttemptsCeiling } from './durable-queue.js';
import { openConnection, type RedisConnection } from './redis-connection.js';

/** Exponential: `delayMs · factor^(retry − 1)`, capped at `maxDelayMs`. */
export interface WorkerBackoff {
  /** Wait before the first retry. Default 1 000 ms. */
  delayMs?: number;
  /** Default 2. */
  factor?: number;
  /** Default 5 minutes. */
  maxDelayMs?: number;
}

export interface StartWorkerOptions {
  /** The processing whose handlers run the jobs: `createProcessing()` with the same handlers as the web process (no secret needed). */
  processing: Pick<Processing, 'runQueued'>;
  connection: RedisConnection;
  /** Must match the queue's. Default `pixhook-events`. */
  queueName?: string;
  prefix?: string;
  /** Jobs run at once by this worker. Default 10. */
  concurrency?: number;
  /** Runs per job, first included, before it is dead-lettered. Default 5. */
  attempts?: number;
  backoff?: WorkerBackoff;
  /**
   * A job whose worker stops renewing its lock (the process died) runs again elsewhere after about
   * this long. Default 30 000 ms.
   */
  lockDurationMs?: number;
  /** How often this worker looks for such stalled jobs. Default 30 000 ms. */
  stalledIntervalMs?: number;
  /** Stalls tolerated per job before it is dead-lettered. Default 2. */
  maxStalledCount?: number;
  logger?: Logger;
}

export interface DurableWorker {
  /** The BullMQ worker (events: `completed`, `failed`, …). */
  readonly worker: Worker<QueuedEvent>;
  /** Stops taking jobs, waits for the running ones, closes the connections pixhook opened. */
  close(): Promise<void>;
}

/** Runs queued events through `processing.runQueued`, with retries, backoff and a dead-letter state. */
export async function startWorker(options: StartWorkerOptions): Promise<DurableWorker> {
  const { Worker: BullWorker, UnrecoverableError } = await import('bullmq');
  const logger = guardLogger(options.logger);
  const queueName = options.queueName ?? defaultQueueName;
  const attempts = options.attempts ?? 5;
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > jobAttemptsCeiling) {
    throw new PixhookConfigError(`pixhook: worker \`attempts\` must be an integer from 1 to ${jobAttemptsCeiling}.`);
  }
  const delayMs = options.backoff?.delayMs ?? 1_000;
  const factor = options.backoff?.factor ?? 2;
  const maxDelayMs = options.backoff?.maxDelayMs ?? 5 * 60 * 1000;
  const opened = await openConnection(options.connection, 'worker');

  async function runJob(job: Job<QueuedEvent>): Promise<void> {
    const attempt = job.attemptsMade + 1;
    const final = attempt >= attempts;
    try {
      await options.processing.runQueued(job.data, { attempt, final });
    } catch (error) {
      // The last attempt, or a payload that can never normalize: straight to the dead letters.
      if (final || (error instanceof PixhookError && error.code === 'payload_invalid')) {
        throw new UnrecoverableError(describeError(error));
      }
      logger.warn({ key: job.data.key, event: job.data.name, attempt, error: describeError(error) }, 'pixhook: queued event failed; retrying');
      throw error;
    }
  }

  const worker = new BullWorker<QueuedEvent>(queueName, runJob, {
    connection: opened.connection,
    ...(options.prefix !== undefined && { prefix: options.prefix }),
    concurrency: options.concurrency ?? 10,
    ...(options.lockDurationMs !== undefined && { lockDuration: options.lockDurationMs }),
    ...(options.stalledIntervalMs !== undefined && { stalledInterval: options.stalledIntervalMs }),
    maxStalledCount: options.maxStalledCount ?? 2,
    settings: {
      backoffStrategy: (attemptsMade: number, type?: string) =>
        type === backoffType ? Math.min(maxDelayMs, Math.round(delayMs * factor ** Math.max(0, attemptsMade - 1))) : delayMs,
    },
  });
  worker.on('error', (error: Error) => logger.warn({ queue: queueName, error: describeError(error) }, 'pixhook: worker error'));
  worker.on('failed', (job: Job<QueuedEvent> | undefined, error: Error) => {
    // Retries and handler dead letters are logged above and by the core; this catches jobs that stalled too often.
    if (job && error.message.includes('stalled')) {
      logger.error({ key: job.data.key, event: job.data.name, error: error.message }, 'pixhook: dead-lettered after stalling');
    }
  });
  try {
    await worker.waitUntilReady();
  } catch (error) {
    await worker.close(true).catch(() => {});
    await opened.close();
    throw error;
  }
  return {
    worker,
    async close() {
      await worker.close();
      await opened.close();
    },
  };
}
