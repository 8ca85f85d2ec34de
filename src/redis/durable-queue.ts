import type { Queue } from 'bullmq';
import { PixhookConfigError, type EventQueue, type Logger, type QueuedEvent } from '../index.js';
import { describeError } from '../shared/describe-error.js';
import { guardLogger } from '../shared/logger.js';
import { checkTtlMs } from '../shared/option-checks.js';
import { withTimeout } from '../shared/with-timeout.js';
import { listDeadLetters, replayDeadLetter, replayDeadLetters, type DeadLetter, type DeadLetterRange } from './dead-letters.js';
import { dedupeIdForKey, freshJobId } from './job-id.js';
import { hasHashTag } from './redis-client.js';
import {
  answeredWithin,
  checkConnectTimeoutMs,
  openConnection,
  redisUnavailable,
  type OpenedConnection,
  type RedisConnection,
} from './redis-connection.js';
import { refuseUnknownOptions } from '../shared/known-options.js';
import { createDurableQueueOptionNames } from './option-names.js';

/** The BullMQ queue of pixhook's jobs. */
export type EventJobQueue = Queue<QueuedEvent, void, string, QueuedEvent, void, string>;

export const defaultQueueName = 'pixhook-events';
/** BullMQ keys are `<prefix>:<queue>:…`; the braces are a Redis Cluster hash tag, so one queue's keys share a slot. */
export const defaultQueuePrefix = '{pixhook}';
/** BullMQ's own ceiling on runs per job; the worker's `attempts` decides when a job is dead-lettered. */
const jobAttemptsCeiling = 1_000;
/** The backoff type jobs carry; `startWorker` supplies the strategy. */
export const backoffType = 'pixhook';

export interface DurableQueueOptions {
  connection: RedisConnection;
  /** Default `pixhook-events`. Workers must use the same name and prefix. */
  queueName?: string;
  /**
   * BullMQ key prefix. Default `{pixhook}`: its hash tag keeps every key of the queue in one Redis Cluster
   * slot. On a Cluster, a prefix (or queue name) without a `{tag}` is refused.
   */
  prefix?: string;
  /**
   * How long a completed job is kept, and how long the add of an event's key refuses a second job for it
   * (BullMQ's deduplication id, a digest of the dedupe key): the receiver answers such a delivery `duplicate`. Default
   * 24 h, like the receiver's `dedupeTtlMs`.
   */
  keepCompletedMs?: number;
  /**
   * How long creating the queue waits for Redis to answer, and how long each dead-letter or count
   * call may take, before rejecting with `redis_unavailable`. From 100 ms to 5 minutes; default 10 000.
   */
  connectTimeoutMs?: number;
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
 * Writes verified events to BullMQ before the receiver answers 200. The add is the claim: its deduplication
 * id is the dedupe key's (`dedupeIdForKey`), so the one script that writes the job refuses a second one for the key (kept
 * `keepCompletedMs`), and even an enqueue that timed out and was retried by the sender makes one job. Each
 * add gets a job id of its own, so it knows which it was: its id back (queued) or the first job's (duplicate).
 */
export async function createDurableQueue(options: DurableQueueOptions): Promise<DurableQueue> {
  refuseUnknownOptions(options, createDurableQueueOptionNames, 'createDurableQueue');
  const { Queue: BullQueue } = await import('bullmq');
  const logger = guardLogger(options.logger);
  const { queueName, prefix } = checkQueueNaming(options.queueName, options.prefix);
  const keepCompletedMs = checkTtlMs('keepCompletedMs', options.keepCompletedMs, 24 * 60 * 60 * 1000);
  const timeoutMs = checkConnectTimeoutMs('connectTimeoutMs', options.connectTimeoutMs);
  const dedupeTtlMs = Math.ceil(keepCompletedMs);
  const opened = await openConnection(options.connection, 'producer');
  const queue = await openBounded(opened, { queueName, prefix }, timeoutMs, () => {
    const created = new BullQueue<QueuedEvent, void, string, QueuedEvent, void, string>(queueName, {
      connection: opened.connection,
      prefix,
      defaultJobOptions: {
        attempts: jobAttemptsCeiling,
        backoff: { type: backoffType },
        removeOnComplete: { age: Math.ceil(keepCompletedMs / 1000) },
        // No `removeOnFail`: BullMQ keeps a failed job (the dead letter) when none is given, as with `false`, and
        // every job's options (packed, decoded and stored by each add, sent back with each fetch) are shorter by it.
      },
    });
    created.on(
      'error',
      quietRepeats((error) => logger.warn({ queue: queueName, ...error }, 'pixhook: queue error')),
    );
    return created;
  });
  // Dead letters and counts are an operator's calls: a Redis that stopped answering rejects them, never hangs them.
  const bounded = <T>(call: () => Promise<T>, what: string): Promise<T> =>
    withTimeout(call(), timeoutMs, what).catch((error: unknown) => {
      throw error instanceof Error && error.name === 'PixhookTimeoutError' ? redisUnavailable(opened.label, timeoutMs, error) : error;
    });

  return {
    queueName,
    queue,
    claims: true,
    enqueue(event) {
      const jobId = freshJobId();
      return queue
        .add(event.name, event, { jobId, deduplication: { id: dedupeIdForKey(event.key), ttl: dedupeTtlMs } })
        .then((job) => (job.id === jobId ? undefined : 'duplicate'));
    },
    listDeadLetters: (range) => bounded(() => listDeadLetters(queue, range), 'listing dead letters'),
    replayDeadLetter: (key) => bounded(() => replayDeadLetter(queue, key), 'replaying a dead letter'),
    replayDeadLetters: () => replayDeadLetters(queue, bounded),
    async counts() {
      const counts = await bounded(() => queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed'), 'counting jobs');
      return {
        waiting: counts['waiting'] ?? 0,
        active: counts['active'] ?? 0,
        delayed: counts['delayed'] ?? 0,
        completed: counts['completed'] ?? 0,
        failed: counts['failed'] ?? 0,
      };
    },
    async close() {
      await closeBounded(queue, opened, timeoutMs);
    },
  };
}

const repeatEveryMs = 60_000;

/**
 * Logs an error the first time, then the same error at most once a minute with how many were held back:
 * BullMQ retries a failing call in a loop, and that must not become thousands of lines a second.
 */
export function quietRepeats(log: (fields: { error: string; repeated?: number }) => void): (error: unknown) => void {
  const seen = new Map<string, { at: number; held: number }>();
  return (error) => {
    const text = describeError(error);
    const now = Date.now();
    const entry = seen.get(text);
    if (entry && now - entry.at < repeatEveryMs) {
      entry.held++;
      return;
    }
    if (seen.size >= 100) seen.clear();
    seen.set(text, { at: now, held: 0 });
    log({ error: text, ...(entry && entry.held > 0 && { repeated: entry.held }) });
  };
}

/**
 * The queue name and the prefix, checked: BullMQ refuses `:` in a name with a bare Error, and on a Redis
 * Cluster the keys `<prefix>:<queue>:…` need a hash tag (checked once the connection says it is a Cluster).
 */
export function checkQueueNaming(queueName: unknown, prefix: unknown): { queueName: string; prefix: string } {
  const name = queueName ?? defaultQueueName;
  if (typeof name !== 'string' || name === '' || name.includes(':')) {
    throw new PixhookConfigError(
      `pixhook: \`queueName\` must be a non-empty string without ":", got ${typeof name === 'string' ? JSON.stringify(name.slice(0, 80)) : typeof name}.`,
    );
  }
  const chosen = prefix ?? defaultQueuePrefix;
  if (typeof chosen !== 'string' || chosen === '') {
    throw new PixhookConfigError(
      `pixhook: \`prefix\` must be a non-empty string, got ${typeof chosen === 'string' ? 'an empty string' : typeof chosen}.`,
    );
  }
  return { queueName: name, prefix: chosen };
}

/**
 * Creates a BullMQ queue or worker and waits until it is ready, for at most `timeoutMs`; on failure
 * everything opened is closed at once, so nothing keeps the process alive, and the error is `redis_unavailable`.
 */
export async function openBounded<T extends BullClass>(
  opened: OpenedConnection,
  naming: { queueName: string; prefix: string },
  timeoutMs: number,
  create: () => T,
): Promise<T> {
  const { queueName, prefix } = naming;
  if (opened.cluster && !hasHashTag(`${prefix}:${queueName}:`)) {
    await opened.close();
    throw new PixhookConfigError(
      `pixhook: \`prefix\` must carry a hash tag on a Redis Cluster, so every key of the queue lands in one slot: ` +
        `use e.g. \`prefix: '{${prefix.replace(/[{}]/g, '')}}'\` (or leave the default '${defaultQueuePrefix}'), got ${JSON.stringify(prefix.slice(0, 80))}.`,
    );
  }
  let info: string;
  try {
    info = await answeredWithin(opened, timeoutMs);
  } catch (error) {
    await opened.close();
    throw redisUnavailable(opened.label, timeoutMs, error);
  }
  // A single-node client on a Cluster node gets MOVED for most keys: refuse it now, with the URL that works.
  if (!opened.cluster && /^cluster_enabled:1\b/m.test(info)) {
    await opened.close();
    throw new PixhookConfigError(
      `pixhook: \`connection\` points at one node of a Redis Cluster (${opened.label}), which answers MOVED for most keys: ` +
        'pass a redis+cluster://host:port,host:port URL (seed nodes) or an ioredis Redis.Cluster.',
    );
  }
  let created: T;
  try {
    created = create();
  } catch (error) {
    await opened.close();
    throw error;
  }
  try {
    await withTimeout(created.waitUntilReady(), timeoutMs, 'connecting to Redis');
    return created;
  } catch (error) {
    // Not awaited: BullMQ's close waits for a connection that may never answer; dropping ours ends it.
    created.close().catch(() => {});
    await opened.close();
    throw redisUnavailable(opened.label, timeoutMs, error);
  }
}

interface BullClass {
  waitUntilReady(): Promise<unknown>;
  disconnect(): Promise<void>;
  close(): Promise<void>;
}

/** Closes gracefully when Redis answers; after `timeoutMs`, drops the connections instead of waiting on a silent Redis. */
async function closeBounded(
  target: { close(): Promise<void>; disconnect(): Promise<void> },
  opened: OpenedConnection,
  timeoutMs: number,
): Promise<void> {
  try {
    await withTimeout(target.close(), timeoutMs, 'closing');
  } catch {
    target.disconnect().catch(() => {});
  }
  await opened.close();
}
