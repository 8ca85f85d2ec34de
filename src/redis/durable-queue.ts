import type { Queue } from 'bullmq';
import { describeError, type EventQueue, type Logger, type QueuedEvent } from '../index.js';
import { guardLogger } from '../shared/logger.js';
import { listDeadLetters, replayDeadLetter, replayDeadLetters, type DeadLetter, type DeadLetterRange } from './dead-letters.js';
import { jobIdForKey } from './job-id.js';
import { openConnection, type RedisConnection } from './redis-connection.js';

/** The BullMQ queue of pixhook's jobs. */
export type EventJobQueue = Queue<QueuedEvent, void, string, QueuedEvent, void, string>;

export const defaultQueueName = 'pixhook-events';
/** BullMQ's own ceiling on runs per job; the worker's `attempts` decides when a job is dead-lettered. */
export const jobAttemptsCeiling = 1_000;
/** The backoff type jobs carry; `startWorker` supplies the strategy. */
export const backoffType = 'pixhook';

export interface DurableQueueOptions {
  connection: RedisConnection;
  /** Default `pixhook-events`. Workers must use the same name and prefix. */
  queueName?: string;
  /** BullMQ key prefix. Default `bull`. */
  prefix?: string;
  /**
   * How long a completed job is kept; while it is, its id (the dedupe key) refuses a second job for
   * the same event. Default 24 h, like the receiver's `dedupeTtlMs`.
   */
  keepCompletedMs?: number;
  logger?: Logger;
}

export type DurableQueueCounts = Record<'waiting' | 'active' | 'delayed' | 'completed' | 'failed', number>;

/** The core's `EventQueue` on BullMQ, with the dead-letter operations a merchant needs. */
export interface DurableQueue extends EventQueue {
  readonly queueName: string;
  /** The BullMQ queue, e.g. for a dashboard. */
  readonly queue: EventJobQueue;
  /** Jobs that failed their last attempt, newest first. */
  listDeadLetters(range?: DeadLetterRange): Promise<DeadLetter[]>;
  /** Puts one dead letter back in the queue with fresh attempts; false when `key` is not dead-lettered. */
  replayDeadLetter(key: string): Promise<boolean>;
  /** Replays every dead letter; returns how many. */
  replayDeadLetters(): Promise<number>;
  counts(): Promise<DurableQueueCounts>;
  close(): Promise<void>;
}

/**
 * Writes verified, claimed events to BullMQ before the receiver answers 200. The job id is the
 * dedupe key, so even an enqueue that timed out and was retried by the sender makes one job.
 */
export async function createDurableQueue(options: DurableQueueOptions): Promise<DurableQueue> {
  const { Queue: BullQueue } = await import('bullmq');
  const logger = guardLogger(options.logger);
  const queueName = options.queueName ?? defaultQueueName;
  const opened = await openConnection(options.connection, 'producer');
  const queue = new BullQueue<QueuedEvent, void, string, QueuedEvent, void, string>(queueName, {
    connection: opened.connection,
    ...(options.prefix !== undefined && { prefix: options.prefix }),
    defaultJobOptions: {
      attempts: jobAttemptsCeiling,
      backoff: { type: backoffType },
      removeOnComplete: { age: Math.ceil((options.keepCompletedMs ?? 24 * 60 * 60 * 1000) / 1000) },
      removeOnFail: false,
    },
  });
  queue.on('error', (error: Error) => logger.warn({ queue: queueName, error: describeError(error) }, 'pixhook: queue error'));
  try {
    await queue.waitUntilReady();
  } catch (error) {
    await queue.close().catch(() => {});
    await opened.close();
    throw error;
  }

  return {
    queueName,
    queue,
    async enqueue(event) {
      await queue.add(event.name, event, { jobId: jobIdForKey(event.key) });
    },
    listDeadLetters: (range) => listDeadLetters(queue, range),
    replayDeadLetter: (key) => replayDeadLetter(queue, key),
    replayDeadLetters: () => replayDeadLetters(queue),
    async counts() {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
      return {
        waiting: counts['waiting'] ?? 0,
        active: counts['active'] ?? 0,
        delayed: counts['delayed'] ?? 0,
        completed: counts['completed'] ?? 0,
        failed: counts['failed'] ?? 0,
      };
    },
    async close() {
      await queue.close();
      await opened.close();
    },
  };
}
