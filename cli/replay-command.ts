import { createProcessing, memoryDedupeStore, type DeliveryJournal } from '../src/index.js';
import { bulkReplay, replayFilterFrom, type BulkReplayResult } from '../src/console/bulk-replay.js';
import { parseCommandLine, runCommand, UsageError } from './shared/cli-args.js';
import type { CommandHelp } from './shared/command-help.js';
import { jsonText } from './shared/json-text.js';
import { loadHandlers } from './shared/load-handlers.js';
import { redisEnvHelp } from './shared/redis-backend.js';
import { postgresShared, redisShared } from './shared/journal-backends.js';
import { stderrLogger } from './shared/stderr-logger.js';
import { bookFlags, bookFlagsHelp, bookFrom } from './shared/book-flags.js';

export const replayHelp: CommandHelp = {
  usage:
    'replay (--redis <url> | --postgres <url>) [--since <iso>] [--until <iso>] [--event <name>] [--answer <status>] [--reason <r>] [--resource <id>] (--dry-run | --handlers <module>) [--force] [--book-prefix <p> | --no-book]',
  about:
    'Replays journaled deliveries that match the filters, oldest first, through dedupe and the payment book kept on the same backend (a handled event comes back duplicate, a held one held). --dry-run only counts them.',
  flags: [
    { flag: '--redis <url>', meaning: 'the journal and dedupe store your receivers share (default: PIXHOOK_REDIS_URL)' },
    {
      flag: '--postgres <url>',
      meaning: 'the journal and the inbox (dedupe) your receivers share in PostgreSQL (default: PIXHOOK_POSTGRES_URL)',
    },
    { flag: '--since <iso>', meaning: 'deliveries that arrived at or after this time (e.g. 2026-11-27T10:00:00Z)' },
    { flag: '--until <iso>', meaning: 'deliveries that arrived before this time' },
    { flag: '--event <name>', meaning: 'only this event (e.g. transaction_paid)' },
    { flag: '--answer <status>', meaning: 'only deliveries answered with this HTTP status (e.g. 500)' },
    { flag: '--reason <r>', meaning: 'only deliveries answered with this reason (e.g. handler_failed)' },
    { flag: '--resource <id>', meaning: "only this charge's or transfer's deliveries" },
    { flag: '--dry-run', meaning: 'count what would be replayed; nothing runs' },
    { flag: '--handlers <module>', meaning: 'the module that registers your handlers (required unless --dry-run)' },
    {
      flag: '--force',
      meaning: 'skip the shared dedupe store (its done marks); never the payment book: a payment it applied is still a duplicate',
    },
    ...bookFlagsHelp,
  ],
  env: { ...redisEnvHelp, PIXHOOK_POSTGRES_URL: 'the PostgreSQL URL, when no --postgres (nor a Redis URL) is given' },
};

/**
 * `pixhook replay`: a bulk replay from the shared journal. Prints one JSON line per delivery and a
 * summary on stderr; exit 0 when every run ended 2xx (or on a dry run), 1 when some failed, 2 on usage.
 */
export function replayCommand(argv: string[]): Promise<number> {
  return runCommand('replay', async () => {
    const { values } = parseCommandLine(argv, {
      redis: { type: 'string' },
      postgres: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      event: { type: 'string' },
      answer: { type: 'string' },
      reason: { type: 'string' },
      resource: { type: 'string' },
      handlers: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      force: { type: 'boolean', default: false },
      ...bookFlags,
    });
    const dryRun = values['dry-run'];
    let filter;
    try {
      filter = replayFilterFrom(
        new URLSearchParams(
          Object.entries({
            since: values.since,
            until: values.until,
            event: values.event,
            answer: values.answer,
            reason: values.reason,
            resource: values.resource,
          }).filter((pair): pair is [string, string] => pair[1] !== undefined),
        ),
      );
    } catch (error) {
      throw new UsageError(`--${(error as Error).message}`);
    }
    if (values.redis !== undefined && values.postgres !== undefined) throw new UsageError('give --redis or --postgres, not both');
    const postgresUrl = values.postgres ?? (process.env['PIXHOOK_POSTGRES_URL'] || undefined);
    // A flag wins over either variable; of the two variables, Redis (as every other command).
    const redis = values.postgres !== undefined ? undefined : (values.redis ?? (process.env['PIXHOOK_REDIS_URL'] || undefined));
    if (redis === undefined && postgresUrl === undefined)
      throw new UsageError('pixhook replay needs --redis <url> or --postgres <url>: the journal your receivers share');
    if (!dryRun && values.handlers === undefined) throw new UsageError('pixhook replay needs --handlers <module> (or --dry-run to count)');
    if (dryRun && values.force) throw new UsageError('--force runs handlers; it has no meaning with --dry-run');
    const register = values.handlers === undefined ? undefined : await loadHandlers(values.handlers);
    const shared = redis !== undefined ? await redisShared(redis) : await postgresShared(postgresUrl!);
    try {
      let processing;
      if (register !== undefined) {
        // Through the same door as the webhook: dedupe, the resource's order, the book, then the handlers.
        const book = await bookFrom('replay', values, shared.backend);
        // --force: a store of its own, so the shared done-marks do not stop the runs (they are what --force is for); the book still judges.
        const store = values.force ? memoryDedupeStore() : shared.store;
        processing = createProcessing({ store, journal: shared.journal, logger: stderrLogger, ...(book && { book }) });
        await register(processing);
      }
      const result = await bulkReplay({ journal: shared.journal, processing, filter, dryRun });
      await processing?.drain?.();
      for (const delivery of result.deliveries) process.stdout.write(`${jsonText(delivery)}\n`);
      process.stderr.write(`pixhook: ${summary(result)} (journal on ${shared.label})\n`);
      if (result.matched === 0 && result.skipped === 0 && result.duplicates === 0 && (await journalEmpty(shared.journal)))
        process.stderr.write(
          `pixhook: hint: the journal on ${shared.label} holds no delivery at all: receivers write it only when made with \`journal: ${redis !== undefined ? 'redisJournal' : 'postgresJournal'}(…)\` on this ${redis !== undefined ? 'Redis (and its prefix)' : 'database'}\n`,
        );
      return result.failed === 0 ? 0 : 1;
    } finally {
      await shared.close();
    }
  });
}

async function journalEmpty(journal: DeliveryJournal): Promise<boolean> {
  try {
    return (await journal.list({ limit: 1 })).length === 0;
  } catch {
    return false;
  }
}

function summary(result: BulkReplayResult): string {
  const skipped = result.skipped === 0 ? '' : `; ${result.skipped} skipped (unverified, without a body, or replays)`;
  const handled = result.duplicates === 0 ? '' : `; ${result.duplicates} already handled (they would come back duplicate)`;
  if (result.dryRun) return `dry run: ${result.matched} would be replayed${handled}${skipped}`;
  // `failed` is told once, last (it also counts every other answer of 300 or more), never twice.
  const entries = Object.entries(result.outcomes);
  const outcomes = entries.filter(([state]) => state !== 'failed').map(([state, n]) => `${n} ${state}`);
  const ran = entries.length === 0 ? 'nothing ran; ' : outcomes.length === 0 ? '' : `${outcomes.join(', ')}; `;
  return `replayed ${result.matched}: ${ran}${result.failed} failed${skipped}`;
}
