import { optionNames } from '../shared/known-options.js';
import type { StartWorkerOptions } from './durable-worker.js';
import type { RedisPaymentBookOptions } from './redis-payment-book.js';
import type { DurableQueueOptions } from './durable-queue.js';

/** Every option createDurableQueue takes. */
export const createDurableQueueOptionNames = optionNames<DurableQueueOptions>()([
  'connection',
  'queueName',
  'prefix',
  'keepCompletedMs',
  'connectTimeoutMs',
  'logger',
]);

/** Every option startWorker takes. */
export const startWorkerOptionNames = optionNames<StartWorkerOptions>()([
  'processing',
  'connection',
  'queueName',
  'prefix',
  'concurrency',
  'retry',
  'lockDurationMs',
  'stalledIntervalMs',
  'maxStalledCount',
  'connectTimeoutMs',
  'logger',
]);

/** Every option redisPaymentBook takes. */
export const redisPaymentBookOptionNames = optionNames<RedisPaymentBookOptions>()([
  'client',
  'prefix',
  'maxTimeline',
  'retentionMs',
  'maxClosed',
  'releaseLeaseMs',
  'timeoutMs',
  'now',
  'requirePersistence',
  'logger',
]);
