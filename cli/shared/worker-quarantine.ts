import { createProcessing, normalizeEvent, type AcceptResult } from '../../src/index.js';
import type { RedisQuarantine } from '../../src/redis/index.js';
import { parseCommandLine, UsageError } from './cli-args.js';
import { unknownLine, type CommandHelp, type FlagHelp } from './command-help.js';
import { loadHandlers } from './load-handlers.js';
import { bookFlags, bookFlagsHelp, bookFrom } from './book-flags.js';
import { closeClient, connectRedis, redisEnvHelp, redisFlags, redisFlagsHelp, redisUrlFrom, redisWaitFrom } from './redis-backend.js';
import { jsonText } from './json-text.js';

const connection = {
  ...redisFlags,
  prefix: { type: 'string' },
  'dedupe-prefix': { type: 'string' },
} as const;

const connectionHelp: FlagHelp[] = [
  ...redisFlagsHelp('where the quarantine is (required)'),
  { flag: '--prefix <p>', meaning: "the quarantine's key prefix (default: the library's)" },
];

export const quarantineHelp: CommandHelp = {
  usage: 'worker quarantine list | show <id> | replay (<id>... | --all) --redis <url> [flags]',
  about: 'The verified deliveries a receiver could not read as events: list them, show one, or replay them through your handlers.',
  flags: connectionHelp,
  env: redisEnvHelp,
  subcommands: {
    list: {
      usage: 'worker quarantine list --redis <url> [flags]',
      about: 'Lists the quarantined deliveries, one JSON line each.',
      flags: connectionHelp,
      env: redisEnvHelp,
    },
    show: {
      usage: 'worker quarantine show <id> --redis <url> [flags]',
      about: 'Prints one quarantined delivery with its body.',
      flags: connectionHelp,
      env: redisEnvHelp,
    },
    replay: {
      usage: 'worker quarantine replay (<id>... | --all) --redis <url> --handlers <module> [flags]',
      about:
        'Reads each body again and hands it to your handlers through the normal dedupe; handled and duplicate ones leave the quarantine. Exit 1 when one stays.',
      flags: [
        { flag: '--handlers <module>', meaning: 'the module that registers your handlers (required)' },
        { flag: '--all', meaning: 'replay every quarantined delivery (else: the ids given)' },
        ...connectionHelp,
        { flag: '--dedupe-prefix <p>', meaning: "the dedupe store's key prefix (default: the library's)" },
        ...bookFlagsHelp,
      ],
      env: redisEnvHelp,
    },
  },
};

/**
 * `pixhook worker quarantine list | show <id> | replay (<id>… | --all)`: the verified deliveries a
 * receiver could not read as events. A replay reads each body again (with this version's reader) and
 * hands it to the handlers through the normal dedupe, so one a later retry already handled is a
 * duplicate, not a second run. Handled and duplicate bodies leave the quarantine; others stay.
 */
export async function quarantineCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === 'list') return list(rest);
  if (sub === 'show') return show(rest);
  if (sub === 'replay') return replay(rest);
  throw new UsageError(
    sub === undefined
      ? 'worker quarantine needs list, show <id> or replay (<id>… | --all)'
      : unknownLine('subcommand', sub, ['list', 'show', 'replay']),
  );
}

async function list(argv: string[]): Promise<number> {
  const { values } = parseCommandLine(argv, connection);
  return withQuarantine(values, async (quarantine) => {
    let listed = 0;
    for (let start = 0; ; start += 100) {
      const page = await quarantine.list({ start, end: start + 99 });
      for (const entry of page) process.stdout.write(`${jsonText(entry)}\n`);
      listed += page.length;
      if (page.length < 100) break;
    }
    process.stderr.write(`pixhook: ${listed} quarantined deliver${listed === 1 ? 'y' : 'ies'}\n`);
    return 0;
  });
}

async function show(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(argv, connection, true);
  if (positionals.length !== 1) throw new UsageError('worker quarantine show takes one id');
  return withQuarantine(values, async (quarantine) => {
    const entry = await quarantine.show(positionals[0]!);
    if (!entry) {
      process.stderr.write(`pixhook: no quarantined delivery ${jsonText(positionals[0])}\n`);
      return 1;
    }
    const { bytes, ...rest } = entry;
    process.stdout.write(`${jsonText({ ...rest, body: new TextDecoder().decode(bytes) })}\n`);
    return 0;
  });
}

async function replay(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandLine(
    argv,
    { ...connection, handlers: { type: 'string' }, all: { type: 'boolean', default: false }, ...bookFlags },
    true,
  );
  if (values.all === positionals.length > 0) throw new UsageError('give either the ids to replay or --all');
  if (values.handlers === undefined) throw new UsageError('worker quarantine replay needs --handlers <module>');
  const url = redisUrlFrom(values.redis, true);
  const redisWait = redisWaitFrom(values['redis-wait']);
  const register = await loadHandlers(values.handlers);
  const { redisDedupeStore, redisQuarantine } = await import('../../src/redis/index.js');
  const client = await connectRedis(url, redisWait);
  try {
    const quarantine = redisQuarantine({ client, ...(values.prefix !== undefined && { prefix: values.prefix }) });
    const store = redisDedupeStore({
      client,
      quarantine: false,
      ...(values['dedupe-prefix'] !== undefined && { prefix: values['dedupe-prefix'] }),
    });
    // The webhook's door: dedupe, the resource's order and the book kept on this Redis, then the handlers.
    const book = await bookFrom('worker quarantine replay', values, { redis: client });
    const processing = createProcessing({ store, ...(book && { book }) });
    await register(processing);
    const ids = values.all ? (await quarantine.list({ start: 0, end: 9_999 })).map((e) => e.id) : positionals;
    let failed = 0;
    for (const id of ids) {
      const entry = await quarantine.show(id);
      const outcome = entry ? await replayOne(entry.bytes, processing, id) : { replayed: false as const, why: 'not in the quarantine' };
      if (outcome.replayed) await quarantine.remove(id);
      else failed++;
      process.stdout.write(`${jsonText({ id, ...outcome })}\n`);
    }
    return failed === 0 ? 0 : 1;
  } finally {
    await closeClient(client);
  }
}

type ReplayOutcome = { replayed: true; key?: string; reason?: AcceptResult['reason'] } | { replayed: false; why: string; key?: string };

async function replayOne(bytes: Uint8Array, processing: ReturnType<typeof createProcessing>, id: string): Promise<ReplayOutcome> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return { replayed: false, why: 'json_invalid: the body is still not UTF-8 JSON' };
  }
  const normalized = normalizeEvent(value, { source: 'replay' });
  if (!normalized.ok) return { replayed: false, why: `payload_invalid: ${normalized.message}` };
  // Marked as a replay of the quarantined body: a processing with a journal records it with `replayOf`.
  const result = await processing.accept(normalized.event, { replayOf: id });
  // Read at last: handled, already handled, held by the book for a person, or an event with no handler.
  if (result.reason === undefined || result.reason === 'duplicate' || result.reason === 'held' || result.reason === 'unknown_event') {
    return {
      replayed: true,
      ...(result.key !== undefined && { key: result.key }),
      ...(result.reason !== undefined && { reason: result.reason }),
    };
  }
  return { replayed: false, why: result.reason, ...(result.key !== undefined && { key: result.key }) };
}

async function withQuarantine(
  values: { redis?: string | undefined; 'redis-wait': string; prefix?: string | undefined },
  body: (q: RedisQuarantine) => Promise<number>,
): Promise<number> {
  const url = redisUrlFrom(values.redis, true);
  const redisWait = redisWaitFrom(values['redis-wait']);
  const { redisQuarantine } = await import('../../src/redis/index.js');
  const client = await connectRedis(url, redisWait);
  try {
    return await body(redisQuarantine({ client, ...(values.prefix !== undefined && { prefix: values.prefix }) }));
  } finally {
    await closeClient(client);
  }
}
