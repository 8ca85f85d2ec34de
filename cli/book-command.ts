import { createProcessing, type BookResource, type HeldEvent, type PaymentBook } from '../src/index.js';
import { releaseRefusalText } from '../src/book/release-refusals.js';
import { escapeControls } from '../src/shared/escape-controls.js';
import { silentLogger } from '../src/shared/logger.js';
import { CommandFailure, durationFlag, parseCommandLine, runCommand, UsageError } from './shared/cli-args.js';
import { unknownLine, type CommandHelp, type FlagHelp } from './shared/command-help.js';
import { jsonText } from './shared/json-text.js';
import { loadHandlers } from './shared/load-handlers.js';
import { closeClient, connectRedis, redisFlags, redisFlagsHelp, redisUrlFrom } from './shared/redis-backend.js';

const backendFlags: FlagHelp[] = [
  { flag: '--redis <url>', meaning: 'the Redis book (redisPaymentBook): redis://… or redis+cluster://… (default: PIXHOOK_REDIS_URL)' },
  ...redisFlagsHelp('the Redis book (redisPaymentBook)').slice(1),
  { flag: '--prefix <p>', meaning: "the Redis book's key prefix (default pixhook:{book}:)" },
  { flag: '--postgres <url>', meaning: 'the Postgres book (postgresPaymentBook): postgres://user@host/db (default: PIXHOOK_POSTGRES_URL)' },
  { flag: '--table <name>', meaning: "the Postgres book's table prefix (default pixhook_book)" },
  { flag: '--json', meaning: 'one JSON document on stdout instead of lines' },
];

const subcommands = ['show', 'held', 'release', 'dismiss'] as const;

export const bookHelp: CommandHelp = {
  usage: 'book <show|held|release|dismiss> [flags]',
  about: 'Reads and tends the payment book on Redis or Postgres: timelines, held events, releases and dismissals.',
  flags: [],
  subcommands: {
    show: {
      usage: 'book show <resource id> (--redis <url> | --postgres <url>)',
      about: "Prints a charge's or transfer's timeline, one line per event.",
      flags: backendFlags,
    },
    held: {
      usage: 'book held [--closed] (--redis <url> | --postgres <url>)',
      about: 'Lists the held events (held or releasing), oldest first; with --closed, the released and dismissed ones, with who and why.',
      flags: [{ flag: '--closed', meaning: 'list the released and dismissed held events instead of the open ones' }, ...backendFlags],
    },
    release: {
      usage: 'book release <held id> --handlers <module> [--by <name>] [--note <text>] (--redis <url> | --postgres <url>)',
      about: "Runs a held event's handlers exactly once (across every instance), then marks it released. Exit 1 when it cannot.",
      flags: [
        { flag: '--handlers <module>', meaning: 'a module whose default export (or `register`) registers the handlers' },
        { flag: '--by <name>', meaning: 'who decided (kept on the held event and its timeline entry)' },
        { flag: '--note <text>', meaning: 'why it was released (kept with the event)' },
        ...backendFlags,
      ],
    },
    dismiss: {
      usage: 'book dismiss <held id> [--note <text>] [--by <name>] (--redis <url> | --postgres <url>)',
      about: 'Closes a held event without running its handlers. Exit 1 when it cannot.',
      flags: [
        { flag: '--note <text>', meaning: 'why it was dismissed (kept with the event)' },
        { flag: '--by <name>', meaning: 'who decided (kept on the held event and its timeline entry)' },
        ...backendFlags,
      ],
    },
  },
};

const flags = {
  ...redisFlags,
  prefix: { type: 'string' },
  postgres: { type: 'string' },
  table: { type: 'string' },
  json: { type: 'boolean', default: false },
  handlers: { type: 'string' },
  note: { type: 'string' },
  by: { type: 'string' },
  closed: { type: 'boolean', default: false },
} as const;

/** `pixhook book show|held|release|dismiss`. */
export function bookCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  return runCommand(sub !== undefined && (subcommands as readonly string[]).includes(sub) ? `book ${sub}` : 'book', async () => {
    if (sub === undefined || !(subcommands as readonly string[]).includes(sub)) {
      throw new UsageError(
        sub === undefined ? `book needs a subcommand: ${subcommands.join(', ')}` : unknownLine('subcommand', sub, subcommands),
      );
    }
    const { values, positionals } = parseCommandLine(rest, flags, true);
    const wantsId = sub !== 'held';
    if (wantsId && positionals.length !== 1) throw new UsageError(`book ${sub} takes one ${sub === 'show' ? 'resource' : 'held'} id`);
    if (!wantsId && positionals.length > 0) throw new UsageError('book held takes no arguments');
    if (sub === 'release' && values.handlers === undefined) throw new UsageError('book release needs --handlers <module>');
    if (values.closed && sub !== 'held') throw new UsageError('--closed is for book held');
    if ((values.by !== undefined || values.note !== undefined) && sub !== 'release' && sub !== 'dismiss')
      throw new UsageError('--by and --note are for book release and book dismiss');
    const trail = { ...(values.note !== undefined && { note: values.note }), ...(values.by !== undefined && { by: values.by }) };
    const register = sub === 'release' ? await loadHandlers(values.handlers as string) : undefined;
    const id = positionals[0] ?? '';
    const { book, where, close } = await openBook(values);
    try {
      if (sub === 'show') return show(await book.get(id), id, values.json, where);
      if (sub === 'held') return listHeld(await book.held(values.closed ? { state: 'closed' } : {}), values.json, where, values.closed);
      if (sub === 'dismiss')
        return answer(
          await book.dismiss(id, values.note ?? '', values.by === undefined ? {} : { by: values.by }),
          'dismissed',
          id,
          values.json,
        );
      const processing = createProcessing({ book });
      await register!(processing);
      return answer(await processing.release(id, trail), 'released', id, values.json);
    } finally {
      await close();
    }
  });
}

interface Backend {
  book: PaymentBook;
  /** Where the book was read: `the Redis book at prefix "pixhook:{book}:"`, so an empty answer says where it looked. */
  where: string;
  close(): Promise<void>;
}

async function openBook(values: {
  redis?: string;
  'redis-wait': string;
  prefix?: string;
  postgres?: string;
  table?: string;
}): Promise<Backend> {
  const postgresUrl = values.postgres ?? (process.env['PIXHOOK_POSTGRES_URL'] || undefined);
  const redisUrl = redisUrlFrom(values.redis, false);
  if ((postgresUrl === undefined && redisUrl === undefined) || (values.redis !== undefined && values.postgres !== undefined)) {
    throw new UsageError('book needs one of --redis <url> or --postgres <url>');
  }
  if (postgresUrl !== undefined && (values.postgres !== undefined || redisUrl === undefined)) {
    const { default: pg } = await import('pg');
    const { postgresPaymentBook } = await import('../src/postgres/index.js');
    const pool = new pg.Pool({ connectionString: postgresUrl, max: 2, connectionTimeoutMillis: 10_000 });
    pool.on('error', () => {});
    return {
      book: postgresPaymentBook({ db: pool, ...(values.table !== undefined && { table: values.table }) }),
      where: `the Postgres book at table prefix ${jsonText(values.table ?? 'pixhook_book')}`,
      close: () => pool.end(),
    };
  }
  if (redisUrl === undefined) throw new UsageError('book needs one of --redis <url> or --postgres <url>');
  const waitMs = durationFlag('--redis-wait', values['redis-wait'], { min: 0, max: 24 * 3_600_000 });
  const client = await connectRedis(redisUrl, waitMs);
  const { redisPaymentBook } = await import('../src/redis/index.js');
  return {
    // Reading and tending the book writes no delivery: the persistence warning is the receiver's to give.
    book: redisPaymentBook({
      client,
      ...(values.prefix !== undefined && { prefix: values.prefix }),
      timeoutMs: 10_000,
      logger: silentLogger,
    }),
    where: `the Redis book at prefix ${jsonText(values.prefix ?? 'pixhook:{book}:')}`,
    close: () => closeClient(client),
  };
}

function show(resource: BookResource | undefined, id: string, json: boolean, where: string): number {
  if (resource === undefined)
    throw new CommandFailure('validation_failed', `not_found: ${where} holds no charge or transfer ${jsonText(id)}`);
  if (json) {
    process.stdout.write(`${jsonText(resource)}\n`);
    return 0;
  }
  const lines = [`${resource.kind} ${text(resource.id)} ${text(resource.status)} ${resource.amountInCents} cents`];
  if (resource.expected !== undefined)
    lines.push(
      `expected ${resource.expected.amountInCents} cents${resource.expected.expiresAt ? ` until ${resource.expected.expiresAt}` : ''}`,
    );
  for (const entry of resource.timeline) {
    const extra = [
      entry.reasons.length > 0 ? entry.reasons.join(',') : '',
      entry.heldId ?? '',
      entry.deliveryId === undefined ? '' : `delivery=${text(entry.deliveryId)}`,
      entry.by === undefined ? '' : `by=${jsonText(entry.by)}`,
      entry.note === undefined ? '' : `note=${jsonText(entry.note)}`,
    ];
    lines.push(
      [
        entry.at,
        entry.outcome,
        text(entry.name),
        text(entry.status),
        `${entry.amountInCents}`,
        entry.channel,
        ...extra.filter(Boolean),
      ].join(' '),
    );
  }
  for (const dispute of resource.disputes)
    lines.push(`dispute ${text(dispute.id ?? '-')} ${dispute.open ? 'open' : 'closed'} since ${dispute.openedAt}`);
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}

function listHeld(held: HeldEvent[], json: boolean, where: string, closed: boolean): number {
  if (json) {
    process.stdout.write(`${jsonText(held)}\n`);
    return 0;
  }
  for (const entry of held) {
    const reasons = entry.violations.map((violation) => violation.reason).join(',');
    const trail = [
      entry.closedAt ?? '',
      entry.by === undefined ? '' : `by=${jsonText(entry.by)}`,
      entry.note === undefined ? '' : `note=${jsonText(entry.note)}`,
    ].filter(Boolean);
    process.stdout.write(
      [entry.heldId, entry.state, entry.heldAt, text(entry.event.name), entry.kind, text(entry.resourceId), reasons, ...trail].join(' ') +
        '\n',
    );
  }
  // On stderr, so stdout stays the list (or the JSON): an empty list says where it looked, and how to look elsewhere.
  process.stderr.write(closed ? closedSummary(held, where) : heldSummary(held, where));
  return 0;
}

function heldSummary(held: HeldEvent[], where: string): string {
  return held.length === 0
    ? `pixhook: nothing is held in ${where} (is that where your receiver's book writes? --prefix / --table read another)\n`
    : `pixhook: ${held.length} held in ${where}\n`;
}

/** `--closed` lists released and dismissed events: the summary counts them as such, never as "held". */
function closedSummary(closed: HeldEvent[], where: string): string {
  if (closed.length === 0) return `pixhook: nothing released or dismissed in ${where}\n`;
  const byState = (['released', 'dismissed'] as const)
    .map((state) => [state, closed.filter((entry) => entry.state === state).length] as const)
    .filter(([, count]) => count > 0)
    .map(([state, count]) => `${count} ${state}`);
  return `pixhook: ${byState.join(', ')} in ${where}\n`;
}

function answer(result: { ok: true } | { ok: false; reason: string }, done: string, id: string, json: boolean): number {
  if (json) process.stdout.write(`${jsonText(result)}\n`);
  if (!result.ok) {
    process.stderr.write(`pixhook: ${result.reason}: held event ${jsonText(id)} ${refusal(result.reason, done)}\n`);
    return 1;
  }
  if (!json) process.stdout.write(`${done} ${text(id)}\n`);
  return 0;
}

/** Why a release or dismissal did not happen, in words: a second release says it was already released. */
function refusal(reason: string, done: string): string {
  if (reason === 'already_released') return done === 'released' ? 'was already released' : 'was already released, so it was not dismissed';
  if (reason === 'dismissed') return done === 'dismissed' ? 'was already dismissed' : 'was dismissed, so it was not released';
  // The book's own judgement: say why, and what is left to do (`pixhook book dismiss`).
  if (reason === 'already_applied' || reason === 'refunded_since_held') return `was not ${done}: ${releaseRefusalText[reason]}`;
  return `was not ${done}`;
}

/** An untrusted string for one terminal line: control characters escaped, no line breaks. */
function text(value: string): string {
  return escapeControls(value).replace(/[\r\n]/g, (c) => (c === '\r' ? '\\r' : '\\n'));
}
