import type { DurableQueue } from '../src/redis/index.js';
import { createProcessing } from '../src/index.js';
import { registerHandlers } from './shared/load-handlers.js';
import { quarantineCommand } from './worker-quarantine.js';
import { parseCommandLine, runCommand, untilSignal, UsageError } from './cli-args.js';
import { eventLine } from './shared/event-line.js';
import { stderrLogger } from './shared/stderr-logger.js';
import { redisWaitFrom, waitForRedis } from './shared/wait-for-redis.js';
import { redactedUrl, redisUrlFrom } from './redis-backend.js';
import { jsonText } from './shared/json-text.js';

const usage =
  'worker --redis <url> [--redis-wait 30s] [--queue pixhook-events] [--prefix bull] [--concurrency 10] [--attempts 5] [--backoff-ms 1000] [--handlers <module>]\n' +
  '       pixhook worker dead-letters --redis <url> [--queue pixhook-events] [--payload]\n' +
  '       pixhook worker replay --redis <url> [--queue pixhook-events] (--key <dedupe key>… | --all)\n' +
  '       pixhook worker quarantine list | show <id> | replay (<id>… | --all) --redis <url> [--handlers <module>]';

const connectionOptions = {
  redis: { type: 'string' },
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
    attempts: { type: 'string', default: '5' },
    'backoff-ms': { type: 'string', default: '1000' },
    handlers: { type: 'string' },
    'redis-wait': { type: 'string', default: '30s' },
  });
  const redis = redisUrlFrom(values.redis, true);
  const concurrency = count('--concurrency', values.concurrency);
  const attempts = count('--attempts', values.attempts);
  const delayMs = count('--backoff-ms', values['backoff-ms'], true);
  const redisWait = redisWaitFrom(values['redis-wait']);
  // A worker never verifies a signature: it runs the handlers on the verified bytes the receiver queued.
  const processing = createProcessing({ logger: stderrLogger });
  processing.onAny((event, context) => {
    process.stdout.write(`${jsonText(eventLine(event, context))}\n`);
  });
  if (values.handlers !== undefined) await registerHandlers(values.handlers, processing);

  await waitForRedis(redis, redisWait);
  const { startWorker } = await import('../src/redis/index.js');
  const worker = await startWorker({
    processing,
    connection: redis,
    queueName: values.queue,
    ...(values.prefix !== undefined && { prefix: values.prefix }),
    concurrency,
    attempts,
    backoff: { delayMs },
    logger: stderrLogger,
  });
  process.stderr.write(`pixhook: worker on queue ${values.queue} (${redactedUrl(redis)}), concurrency ${values.concurrency}\n`);
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
  const { values } = parseCommandLine(argv, { ...connectionOptions, key: { type: 'string', multiple: true }, all: { type: 'boolean', default: false } });
  const keys = values.key ?? [];
  if (values.all === (keys.length > 0)) throw new UsageError('give either --key <dedupe key> (repeatable) or --all');
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

type QueueFlags = { redis?: string | undefined; queue: string; prefix?: string | undefined };

async function withQueue(values: QueueFlags, body: (queue: DurableQueue) => Promise<number>): Promise<number> {
  const { createDurableQueue } = await import('../src/redis/index.js');
  const queue = await createDurableQueue({
    connection: redisUrlFrom(values.redis, true),
    queueName: values.queue,
    ...(values.prefix !== undefined && { prefix: values.prefix }),
    logger: stderrLogger,
  });
  try {
    return await body(queue);
  } finally {
    await queue.close();
  }
}

function count(flag: string, value: string, zeroOk = false): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < (zeroOk ? 0 : 1)) throw new UsageError(`${flag} must be a ${zeroOk ? 'non-negative' : 'positive'} integer, got "${value}"`);
  return n;
}
