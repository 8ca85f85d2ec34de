import type { DurableQueue } from '../src/redis/index.js';
import { createProcessing } from '../src/index.js';
import { registerHandlers } from './shared/load-handlers.js';
import { quarantineCommand } from './shared/worker-quarantine.js';
import {
  flagBounds,
  integerFlag,
  parseCommandLine,
  requirePackage,
  retryFlags,
  retryFlagsBounds,
  retryFlagsUsage,
  retryFromFlags,
  runCommand,
  untilSignal,
  UsageError,
} from './shared/cli-args.js';
import { eventLine } from './shared/event-line.js';
import { stderrLogger } from './shared/stderr-logger.js';
import { waitForRedis } from './shared/wait-for-redis.js';
import {
  closeWithin,
  redactedUrl,
  redisFlags,
  redisUrlForms,
  redisUrlFrom,
  redisWaitFrom,
  withinRedisWait,
} from './shared/redis-backend.js';
import { jsonText } from './shared/json-text.js';

const usage =
  `worker --redis <url> --handlers <module> [--redis-wait 30s] [--queue pixhook-events] [--prefix bull] [--concurrency 10] ${retryFlagsUsage}\n` +
  '       pixhook worker dead-letters --redis <url> [--redis-wait 30s] [--queue pixhook-events] [--payload]\n' +
  '       pixhook worker replay --redis <url> [--redis-wait 30s] [--queue pixhook-events] (--key <dedupe key>… | --all)\n' +
  '       pixhook worker quarantine list | show <id> | replay (<id>… | --all) --redis <url> [--redis-wait 30s] [--handlers <module>]\n' +
  `  --concurrency 1–1000, ${retryFlagsBounds} (default 5 attempts, waits 1 s doubling up to 5 min), --redis-wait 0–24h (exit 1 when Redis does not answer by then)\n` +
  `  --redis ${redisUrlForms}`;

const connectionOptions = {
  ...redisFlags,
  queue: { type: 'string', default: 'pixhook-events' },
  prefix: { type: 'string' },
} as const;

/**
 * `pixhook worker` runs durable jobs: the handlers of `--handlers <module>` (its default export or
 * `register`, called with the processing: its on, onAny, onUnknown, onError), one JSON line on stdout per handled event. `dead-letters`
 * lists jobs that failed their last attempt; `replay` puts them back with fresh attempts.
 */
export function workerCommand(argv: string[]): Promise<number> {
  return runCommand(usage, async () => {
    const [sub, ...rest] = argv;
    if (sub === 'dead-letters') return listCommand(rest);
    if (sub === 'replay') return replayCommand(rest);
    if (sub === 'quarantine') return quarantineCommand(rest);
    return runWorker(argv);
  });
}

async function runWorker(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, {
    ...connectionOptions,
    concurrency: { type: 'string', default: '10' },
    ...retryFlags,
    handlers: { type: 'string' },
  });
  const redis = redisUrlFrom(values.redis, true);
  queueNameFrom(values.queue);
  const concurrency = integerFlag('--concurrency', values.concurrency, flagBounds.concurrency);
  const retry = retryFromFlags(values);
  const redisWait = redisWaitFrom(values['redis-wait']);
  // With no handler every job would complete and the event be lost: the gateway's retries then answer duplicate.
  if (values.handlers === undefined) {
    throw new UsageError(
      'pixhook worker: --handlers <module> is required: a worker with no handler would complete jobs without running anything',
    );
  }
  // A worker never verifies a signature: it runs the handlers on the verified bytes the receiver queued.
  const processing = createProcessing({ logger: stderrLogger });
  processing.onAny((event, context) => {
    process.stdout.write(`${jsonText(eventLine(event, context))}\n`);
  });
  await registerHandlers(values.handlers, processing);

  requirePackage('bullmq');
  await waitForRedis(redis, redisWait);
  const { startWorker } = await import('../src/redis/index.js');
  const worker = await withinRedisWait(
    startWorker({
      processing,
      connection: redis,
      queueName: values.queue,
      ...(values.prefix !== undefined && { prefix: values.prefix }),
      concurrency,
      retry,
      logger: stderrLogger,
    }),
    redis,
    redisWait,
    'the worker',
  );
  process.stderr.write(`pixhook: worker on queue ${jsonText(values.queue)} (${redactedUrl(redis)}), concurrency ${concurrency}\n`);
  await untilSignal();
  await worker.close();
  return 0;
}

async function listCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, { ...connectionOptions, payload: { type: 'boolean', default: false } });
  return withQueue(values, async (queue) => {
    let listed = 0;
    for (let start = 0; ; start += 100) {
      const page = await queue.listDeadLetters({ start, end: start + 99 });
      for (const { payload, ...letter } of page) {
        process.stdout.write(`${jsonText(values.payload ? { ...letter, payload } : letter)}\n`);
      }
      listed += page.length;
      if (page.length < 100) break;
    }
    process.stderr.write(`pixhook: ${listed} dead letter${listed === 1 ? '' : 's'} on ${values.queue}\n`);
    return 0;
  });
}

async function replayCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, {
    ...connectionOptions,
    key: { type: 'string', multiple: true },
    all: { type: 'boolean', default: false },
  });
  const keys = values.key ?? [];
  if (values.all === keys.length > 0) throw new UsageError('give either --key <dedupe key> (repeatable) or --all');
  return withQueue(values, async (queue) => {
    if (values.all) {
      const replayed = await queue.replayDeadLetters();
      process.stdout.write(`${jsonText({ replayed })}\n`);
      return 0;
    }
    let missing = 0;
    for (const key of keys) {
      const replayed = await queue.replayDeadLetter(key);
      if (!replayed) missing++;
      process.stdout.write(`${jsonText({ key, replayed })}\n`);
    }
    return missing === 0 ? 0 : 1;
  });
}

type QueueFlags = { redis?: string | undefined; 'redis-wait': string; queue: string; prefix?: string | undefined };

async function withQueue(values: QueueFlags, body: (queue: DurableQueue) => Promise<number>): Promise<number> {
  const url = redisUrlFrom(values.redis, true);
  queueNameFrom(values.queue);
  const redisWait = redisWaitFrom(values['redis-wait']);
  requirePackage('bullmq');
  await waitForRedis(url, redisWait);
  const { createDurableQueue } = await import('../src/redis/index.js');
  const queue = await withinRedisWait(
    createDurableQueue({
      connection: url,
      queueName: values.queue,
      ...(values.prefix !== undefined && { prefix: values.prefix }),
      logger: stderrLogger,
    }),
    url,
    redisWait,
    'the queue',
  );
  try {
    return await body(queue);
  } finally {
    await closeWithin(() => queue.close());
  }
}

/** BullMQ builds keys with `:`, and refuses such a name only after its connection is open: refused here first. */
function queueNameFrom(name: string): string {
  if (name === '' || name.includes(':')) throw new UsageError(`--queue must be a non-empty name without ':', got ${jsonText(name)}`);
  return name;
}
