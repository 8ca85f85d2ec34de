export { redisDedupeStore, RedisUnavailableError } from './redis-dedupe-store.js';
export type { RedisDedupeStore, RedisDedupeStoreOptions } from './redis-dedupe-store.js';
export type { IoredisLikeClient, NodeRedisLikeClient, RedisClientLike } from './redis-client.js';
export type { RedisPersistenceOptions } from './redis-persistence.js';
export { createDurableQueue, defaultQueueName, defaultQueuePrefix } from './durable-queue.js';
export type { DurableQueue, DurableQueueCounts, DurableQueueOptions } from './durable-queue.js';
export { startWorker } from './durable-worker.js';
export type { DurableWorker, StartWorkerOptions } from './durable-worker.js';
export type { DeadLetter, DeadLetterRange } from './dead-letters.js';
export type { RedisConnection } from './redis-connection.js';
export { redisQuarantine } from './redis-quarantine.js';
export type {
  QuarantinedDelivery,
  QuarantineRange,
  QuarantineSummary,
  RedisQuarantine,
  RedisQuarantineOptions,
} from './redis-quarantine.js';
export { redisWatchStore } from './redis-watch-store.js';
export type { RedisEvalClient, RedisWatchStore, RedisWatchStoreOptions } from './redis-watch-store.js';
export { redisCursorStore } from './redis-cursor-store.js';
export type { RedisCursorStore, RedisCursorStoreOptions } from './redis-cursor-store.js';
export { redisPaymentBook } from './redis-payment-book.js';
export type { RedisPaymentBook, RedisPaymentBookOptions } from './redis-payment-book.js';
export { redisJournal } from './redis-journal.js';
export type { RedisJournalOptions } from './redis-journal.js';
