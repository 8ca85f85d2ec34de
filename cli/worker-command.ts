import type { DurableQueue } from '../src/redis/index.js';
import { createProcessing } from '../src/index.js';
import { loadHandlers } from './shared/load-handlers.js';
import { openPostgresPool } from './shared/postgres-pool.js';
import { bookFlags, bookFlagsHelp, bookFrom } from './shared/book-flags.js';
import { quarantineCommand, quarantineHelp } from './shared/worker-quarantine.js';
import {
  flagBounds,
  integerFlag,
  parseCommandLine,
  requirePackage,
  retryFlags,
  retryFlagsHelp,
  retryFromFlags,
  runCommand,
  untilSignal,
  UsageError,
} from './shared/cli-args.js';
import { unknownLine, type CommandHelp, type FlagHelp } from './shared/command-help.js';
import { eventLine } from './shared/event-line.js';
import { stderrLogger } from './shared/stderr-logger.js';
import { waitForRedis } from './shared/wait-for-redis.js';
import {
  closeClient,
  closeWithin,
  connectRedis,
  redisEnvHelp,
  redisFlags,
  redisFlagsHelp,
  redisUrlFrom,
  redisWaitFrom,
  withinRedisWait,
} from './shared/redis-backend.js';
import { jsonText } from './shared/json-text.js';
import { serveWorkerHealth, workerHealthFlags, workerHealthFlagsHelp } from './shared/worker-health.js';
import { redactedUrl } from '../src/shared/redacted-url.js';

const queueFlagsHelp: FlagHelp[] = [
  ...redisFlagsHelp('the durable queue (required)'),
  { flag: '--queue <name>', meaning: "the queue's name, without ':' (default pixhook-events)" },
  { flag: '--prefix <p>', meaning: "BullMQ's key prefix, with a {hash tag} on a Cluster (default {pixhook})" },
];

export const workerHelp: CommandHelp = {
  usage: 'worker --redis <url> --handlers <module> [--postgres <url>] [flags]',
  about:
    'Runs the durable jobs a receiver queued (listen --mode durable) through your handlers: one JSON line on stdout per handled event, until Ctrl-C.',
  flags: [
    { flag: '--handlers <module>', meaning: 'the module that registers your handlers: its default export or register (required)' },
    ...queueFlagsHelp,
    { flag: '--concurrency <n>', meaning: 'jobs at a time, 1–1000 (default 10)' },
    ...retryFlagsHelp({ attempts: 5, delayMs: 1_000, maxDelayMs: 300_000 }, ', per job'),
    ...workerHealthFlagsHelp,
    {
      flag: '--postgres <url>',
      meaning: 'the PostgreSQL database whose payment book the handlers run behind (the queue stays on --redis)',
    },
    ...bookFlagsHelp,
  ],
  env: redisEnvHelp,
  subcommands: {
    'dead-letters': {
      usage: 'worker dead-letters --redis <url> [flags]',
      about: 'Lists the jobs that failed their last attempt, one JSON line each.',
      flags: [...queueFlagsHelp, { flag: '--payload', meaning: "include each job's payload (default off)" }],
      env: redisEnvHelp,
    },
    replay: {
      usage: 'worker replay --redis <url> (--key <dedupe key>... | --all) [--dry-run] [flags]',
      about: 'Puts dead letters back on the queue with fresh attempts. Exit 1 when a key was not a dead letter.',
      flags: [
        { flag: '--key <dedupe key>', meaning: 'the dead letter to replay, repeatable (this or --all)' },
        { flag: '--all', meaning: 'replay every dead letter' },
        { flag: '--dry-run', meaning: 'list what would be put back (one JSON line each); nothing is replayed' },
        ...queueFlagsHelp,
      ],
      env: redisEnvHelp,
    },
    quarantine: quarantineHelp,
  },
};

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
  const [sub, ...rest] = argv;
  const known = sub === 'dead-letters' || sub === 'replay' || sub === 'quarantine';
  const inner = sub === 'quarantine' && (rest[0] === 'list' || rest[0] === 'show' || rest[0] === 'replay') ? ` ${rest[0]}` : '';
  return runCommand(known ? `worker ${sub}${inner}` : 'worker', async () => {
    if (sub === 'dead-letters') return listCommand(rest);
    if (sub === 'replay') return replayCommand(rest);
    if (sub === 'quarantine') return quarantineCommand(rest);
    // A word where a flag should be is a mistyped subcommand, not a worker argument.
    if (sub !== undefined && !sub.startsWith('-'))
      throw new UsageError(unknownLine('subcommand', sub, ['dead-letters', 'replay', 'quarantine']));
    return runWorker(argv);
  });
}

async function runWorker(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, {
    ...connectionOptions,
    concurrency: { type: 'string', default: '10' },
    ...retryFlags,
    handlers: { type: 'string' },
    ...workerHealthFlags,
    postgres: { type: 'string' },
    ...bookFlags,
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
  const register = await loadHandlers(values.handlers);

  requirePackage('bullmq');
  await waitForRedis(redis, redisWait);
  const { startWorker, redisDedupeStore } = await import('../src/redis/index.js');
  // The receivers' Redis: its store keeps each charge's order across workers, and the book judges every job.
  const client = await connectRedis(redis, redisWait);
  // With --postgres the book is the app's Postgres one; the queue and the store stay on Redis.
  const pool = values.postgres === undefined ? undefined : await openPostgresPool(values.postgres, 'worker');
  const book = await bookFrom('worker', values, pool === undefined ? { redis: client } : { pool }).catch(async (error: unknown) => {
    await pool?.end();
    throw error;
  });
  // A worker never verifies a signature: it runs the handlers on the verified bytes the receiver queued.
  const processing = createProcessing({
    logger: stderrLogger,
    store: redisDedupeStore({ client, quarantine: false }),
    ...(book && { book }),
  });
  processing.onAny((event, context) => {
    process.stdout.write(`${jsonText(eventLine(event, context))}\n`);
  });
  await register(processing);
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
  // Armed before the ready line: a signal sent as soon as it is read must not find the default action.
  const signalled = untilSignal();
  const health = await serveWorkerHealth(values, worker);
  const healthNote = health === undefined ? '' : `; health at ${health.url}`;
  process.stderr.write(
    `pixhook: worker on queue ${jsonText(values.queue)} (${redactedUrl(redis)}), concurrency ${concurrency}${healthNote}\n`,
  );
  await signalled;
  await health?.close();
  await worker.close();
  await processing.close();
  await closeClient(client);
  await pool?.end();
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
    'dry-run': { type: 'boolean', default: false },
  });
  const keys = values.key ?? [];
  if (values.all === keys.length > 0) throw new UsageError('give either --key <dedupe key> (repeatable) or --all');
  return withQueue(values, async (queue) => {
    if (values['dry-run']) return dryReplay(queue, values.all ? undefined : new Set(keys), values.queue);
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

/** `worker replay --dry-run`: the dead letters that would be put back, one JSON line each; nothing moves. Exit 1 when a key is not one. */
async function dryReplay(queue: DurableQueue, keys: Set<string> | undefined, name: string): Promise<number> {
  const found = new Set<string>();
  for (let start = 0; ; start += 100) {
    const page = await queue.listDeadLetters({ start, end: start + 99 });
    for (const letter of page) {
      if (keys !== undefined && !keys.has(letter.key)) continue;
      found.add(letter.key);
      process.stdout.write(`${jsonText({ key: letter.key, event: letter.name, wouldReplay: true })}\n`);
    }
    if (page.length < 100) break;
  }
  const missing = keys === undefined ? [] : [...keys].filter((key) => !found.has(key));
  for (const key of missing) process.stdout.write(`${jsonText({ key, wouldReplay: false })}\n`);
  process.stderr.write(`pixhook: dry run: ${found.size} dead letter${found.size === 1 ? '' : 's'} on ${name} would be replayed\n`);
  return missing.length === 0 ? 0 : 1;
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
