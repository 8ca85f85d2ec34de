import { PixApiError, PixNetworkError, PixResponseError } from '../src/client/client-errors.js';
import { createClient } from '../src/client/create-client.js';
import { checkNumber } from '../src/shared/option-checks.js';
import { createProcessing, type Logger, type PixEvent } from '../src/index.js';
import { createListingReconciler, createReconciler, type ListingRunResult, type RunResult } from '../src/reconcile/index.js';
import { createApiPixClient } from '../src/api-pix/index.js';
import { durationFlag, flagBounds, integerFlag, parseCommandLine, runCommand, untilSignal, UsageError } from './shared/cli-args.js';
import type { CommandHelp } from './shared/command-help.js';
import { loadHandlers } from './shared/load-handlers.js';
import { jsonText } from './shared/json-text.js';
import { credentialsFromEnv } from './shared/api-credentials.js';
import { bookFlags, bookFlagsHelp, bookFrom } from './shared/book-flags.js';
import {
  openReconcileBackend,
  reconcileBackendFlags,
  reconcileBackendHelp,
  reconcileBackendUrl,
  type ReconcileBackend,
} from './shared/reconcile-backends.js';
import { redactedUrl } from '../src/shared/redacted-url.js';
import { reconcileApiPixFlagsHelp, reconcileEnvHelp } from './shared/profile-help.js';

export const reconcileHelp: CommandHelp = {
  usage: 'reconcile --handlers <module> [--once | --every 60s] [flags]',
  about:
    'Reads the watched charges from the gateway and hands each final status to your handlers: one JSON line per recovered event and a summary per run. Exit 1 when a read or a handler failed.',
  flags: [
    { flag: '--handlers <module>', meaning: 'the module that registers your handlers (required)' },
    { flag: '--once', meaning: 'one run, then exit (default: run every --every until Ctrl-C)' },
    { flag: '--every <d>', meaning: 'the time between runs, 1ms–24h, e.g. 60s, 5m (default 60s)' },
    { flag: '--charge <id>', meaning: 'follow this charge too (repeatable); read at once, even one the watch list follows already' },
    ...reconcileBackendHelp('the watch list and dedupe your app shares'),
    {
      flag: '--prefix <p>',
      meaning: "the watch list's (api-pix: the cursor's) key prefix in Redis or table prefix in PostgreSQL (default: the library's)",
    },
    { flag: '--min-age <d>', meaning: 'read a charge only once it is this old, 0–24h (default 2m)' },
    { flag: '--max-age <d>', meaning: 'stop following a charge this old, 1ms–366d (default 48h)' },
    { flag: '--batch <n>', meaning: 'charges read per run, 1–1000 (default 50)' },
    { flag: '--concurrency <n>', meaning: 'reads at a time, 1–100 (default 4)' },
    { flag: '--query-limit <n>', meaning: "the gateway's query limit per minute, 1–100000 (default 100)" },
    { flag: '--query-share <x>', meaning: 'the share of that limit reconcile may use, 0.01–1 (default 0.5)' },
    { flag: '--variant <v>', meaning: "the gateway API's shape: a or b (default a)" },
    ...bookFlagsHelp,
    {
      flag: '--profile <p>',
      meaning:
        'gateway (default) or api-pix: walk the standard GET /pix in windows from a cursor kept in Redis (--redis), in PostgreSQL (--postgres) or in memory; with api-pix only --handlers, --once, --every, --redis, --redis-wait, --postgres, --prefix, --book-prefix, --no-book and the api-pix: flags below apply, and the PIXHOOK_API_PIX_* variables (as `pixhook emulator --profile api-pix` and `pixhook dev --profile api-pix` print them)',
    },
    ...reconcileApiPixFlagsHelp,
  ],
  env: reconcileEnvHelp,
};

/** The API Pix connection, from the environment `pixhook emulator --profile api-pix` prints. */
function apiPixClientFromEnv() {
  const need = (name: string) => {
    const value = process.env[name];
    if (value === undefined || value === '') throw new UsageError(`${name} is required with --profile api-pix`);
    return value;
  };
  const optional = (name: string) => (process.env[name] === undefined || process.env[name] === '' ? undefined : process.env[name]);
  const ca = optional('PIXHOOK_API_PIX_CA');
  const tokenUrl = optional('PIXHOOK_API_PIX_TOKEN_URL');
  const pixKey = optional('PIXHOOK_API_PIX_KEY');
  return createApiPixClient({
    baseUrl: need('PIXHOOK_API_PIX_URL'),
    clientId: need('PIXHOOK_API_PIX_CLIENT_ID'),
    clientSecret: need('PIXHOOK_API_PIX_CLIENT_SECRET'),
    cert: need('PIXHOOK_API_PIX_CLIENT_CERT'),
    key: need('PIXHOOK_API_PIX_CLIENT_KEY'),
    ...(ca !== undefined && { ca }),
    ...(tokenUrl !== undefined && { tokenUrl }),
    ...(pixKey !== undefined && { pixKey }),
    logger: stderrLogger,
  });
}

/**
 * `pixhook reconcile --profile api-pix`: walks `GET /pix` from the cursor and hands every Pix to the handlers.
 * stdout: one JSON line per recovered event and a summary per run (with the cursor and its lag).
 */
function apiPixReconcileCommand(argv: string[]): Promise<number> {
  return runCommand('reconcile', async () => {
    const { values } = parseCommandLine(argv, {
      handlers: { type: 'string' },
      once: { type: 'boolean', default: false },
      every: { type: 'string' },
      ...reconcileBackendFlags,
      prefix: { type: 'string' },
      from: { type: 'string' },
      window: { type: 'string' },
      overlap: { type: 'string' },
      settle: { type: 'string' },
      'page-size': { type: 'string' },
      key: { type: 'string', multiple: true },
      ...bookFlags,
    });
    if (values.handlers === undefined) throw new UsageError('--handlers <module> is required (the module that registers your handlers)');
    if (values.once && values.every !== undefined) throw new UsageError('--once and --every exclude each other');
    const everyMs = values.every === undefined ? 60_000 : durationFlag('--every', values.every, bounds.every);
    const windowMs = values.window === undefined ? undefined : durationFlag('--window', values.window, flagBounds.ageMs);
    const overlapMs = values.overlap === undefined ? undefined : durationFlag('--overlap', values.overlap, flagBounds.delayMs);
    const settleMs = values.settle === undefined ? undefined : durationFlag('--settle', values.settle, flagBounds.delayMs);
    const pageSize = values['page-size'] === undefined ? undefined : integerFlag('--page-size', values['page-size'], { min: 1, max: 1000 });
    const from = values.from === undefined ? undefined : Date.parse(values.from);
    if (from !== undefined && !Number.isFinite(from)) throw new UsageError(`--from must be an ISO 8601 date, got ${jsonText(values.from)}`);
    const url = reconcileBackendUrl(values);
    const client = apiPixClientFromEnv();
    // The key check, as on the webhook: --key, else the account's own key (PIXHOOK_API_PIX_KEY) — a Pix to another is held.
    const keys = values.key ?? (client.pixKey === undefined ? undefined : [client.pixKey]);
    const register = await loadHandlers(values.handlers);

    if (url === undefined)
      process.stderr.write(
        'pixhook reconcile: no --redis or --postgres: the cursor and dedupe are in this process only, and no payment book judges the payments (a payment your book held or applied runs here)\n',
      );
    let shared: ReconcileBackend;
    try {
      shared = await openReconcileBackend(url, values, stderrLogger);
    } catch (error) {
      client.close();
      throw error;
    }
    try {
      const cursorStore = await shared.cursorStore(values.prefix);
      // The webhook's door: dedupe, the resource's order, the book kept on the same backend, then the handlers.
      const book = await bookFrom('reconcile', values, shared.backend);
      const processing = createProcessing({ store: shared.store, logger: stderrLogger, ...(book && { book }) });
      await register(processing);
      const reconciler = createListingReconciler({
        client,
        processing,
        cursorStore,
        ...(keys !== undefined && { keys }),
        everyMs,
        ...(from !== undefined && { from }),
        ...(windowMs !== undefined && { windowMs }),
        ...(overlapMs !== undefined && { overlapMs }),
        ...(pageSize !== undefined && { pageSize }),
        ...(settleMs !== undefined && { settleMs }),
        logger: stderrLogger,
        onRecovered: (event) => {
          const pix = (event as { pix?: { endToEndId?: string; txid?: string } }).pix;
          process.stdout.write(`${jsonText({ type: 'recovered', event: event.name, endToEndId: pix?.endToEndId, txid: pix?.txid })}\n`);
        },
      });
      const summary = async (result: ListingRunResult) => {
        const metrics = await reconciler.metrics();
        const { stoppedBy, cursor, ...counts } = result;
        process.stdout.write(
          `${jsonText({ type: 'summary', ...counts, cursor: new Date(cursor).toISOString(), lagMs: metrics.lagMs, ...(stoppedBy && { stoppedBy: stoppedBy.message }) })}\n`,
        );
        return result;
      };
      if (values.once) {
        const result = await summary(await reconciler.runOnce());
        await processing.drain();
        return result.failed > 0 || result.stoppedBy !== undefined ? 1 : 0;
      }
      const signalled = untilSignal();
      let stopped = false;
      void signalled.then(() => (stopped = true));
      while (!stopped) {
        await summary(await reconciler.runOnce());
        await sleepUnless(everyMs, signalled);
      }
      await processing.drain();
      return 0;
    } finally {
      client.close();
      await shared.close();
    }
  });
}

const bounds = {
  every: flagBounds.timeoutMs,
  minAge: flagBounds.delayMs,
  maxAge: flagBounds.ageMs,
  batch: { min: 1, max: 1_000 },
  concurrency: { min: 1, max: 100 },
  queryLimit: { min: 1, max: 100_000 },
} as const;

// Every field of a log line is JSON: charge ids, reasons and messages come from the gateway.
const stderrLogger: Logger = {
  info: (fields, message) => process.stderr.write(`${message ?? 'pixhook reconcile'} ${jsonText(fields)}\n`),
  warn: (fields, message) => process.stderr.write(`${message ?? 'pixhook reconcile'} ${jsonText(fields)}\n`),
  error: (fields, message) => process.stderr.write(`${message ?? 'pixhook reconcile'} ${jsonText(fields)}\n`),
};

/**
 * `pixhook reconcile`: reads the watched charges from the gateway and hands each final status to the
 * `--handlers` module's handlers. stdout: one JSON line per recovered event, and a summary line per
 * run. Exit 0: done (or stopped by a signal); 1: a read or a handler failed, or the gateway, Redis or
 * PostgreSQL could not be reached; 2: usage.
 */
export function reconcileCommand(argv: string[]): Promise<number> {
  const profileAt = argv.findIndex((arg) => arg === '--profile' || arg.startsWith('--profile='));
  if (profileAt !== -1) {
    const inline = argv[profileAt]!.startsWith('--profile=');
    const profile = inline ? argv[profileAt]!.slice('--profile='.length) : argv[profileAt + 1];
    const rest = argv.filter((_, i) => i !== profileAt && (inline || i !== profileAt + 1));
    if (profile === 'api-pix') return apiPixReconcileCommand(rest);
    if (profile !== 'gateway')
      return runCommand('reconcile', async () => {
        throw new UsageError(`--profile must be gateway or api-pix, got ${jsonText(profile ?? '')}`);
      });
    argv = rest;
  }
  return runCommand('reconcile', async () => {
    const { values } = parseCommandLine(argv, {
      handlers: { type: 'string' },
      once: { type: 'boolean', default: false },
      every: { type: 'string' },
      ...reconcileBackendFlags,
      prefix: { type: 'string' },
      charge: { type: 'string', multiple: true },
      'min-age': { type: 'string' },
      'max-age': { type: 'string' },
      batch: { type: 'string' },
      concurrency: { type: 'string' },
      'query-limit': { type: 'string' },
      'query-share': { type: 'string' },
      variant: { type: 'string', default: 'a' },
      ...bookFlags,
    });
    if (values.handlers === undefined) throw new UsageError('--handlers <module> is required (the module that registers your handlers)');
    if (values.once && values.every !== undefined) throw new UsageError('--once and --every exclude each other');
    if (values.variant !== 'a' && values.variant !== 'b') throw new UsageError(`--variant must be a or b, got ${jsonText(values.variant)}`);
    const everyMs = values.every === undefined ? 60_000 : durationFlag('--every', values.every, bounds.every);
    const minAgeMs = values['min-age'] === undefined ? 120_000 : durationFlag('--min-age', values['min-age'], bounds.minAge);
    const maxAgeMs = values['max-age'] === undefined ? undefined : durationFlag('--max-age', values['max-age'], bounds.maxAge);
    const batch = values.batch === undefined ? undefined : integerFlag('--batch', values.batch, bounds.batch);
    const concurrency = values.concurrency === undefined ? undefined : integerFlag('--concurrency', values.concurrency, bounds.concurrency);
    const queryLimit =
      values['query-limit'] === undefined ? undefined : integerFlag('--query-limit', values['query-limit'], bounds.queryLimit);
    const queryShare = values['query-share'] === undefined ? undefined : share(values['query-share']);
    const credentials = credentialsFromEnv();
    const url = reconcileBackendUrl(values);
    const register = await loadHandlers(values.handlers);
    if (url === undefined && (values.charge ?? []).length === 0) {
      throw new UsageError('nothing to follow: give --redis <url> or --postgres <url> (the watch list your app fills) or --charge <id>');
    }
    if (url === undefined)
      process.stderr.write(
        'pixhook reconcile: no --redis or --postgres: dedupe is in this process only, so a webhook your receiver already handled is handled again, and no payment book judges the payments (a payment your book held or applied runs here)\n',
      );
    const shared = await openReconcileBackend(url, values, stderrLogger);
    const redisUrl = url !== undefined && 'redis' in url ? url.redis : undefined;

    try {
      const watchStore = await shared.watchStore(values.prefix);
      // The webhook's door: dedupe, the resource's order, the book kept on the same backend, then the handlers.
      const book = await bookFrom('reconcile', values, shared.backend);
      const processing = createProcessing({ store: shared.store, logger: stderrLogger, ...(book && { book }) });
      await register(processing);
      const reconciler = createReconciler({
        client: createClient({ ...credentials, variant: values.variant, logger: stderrLogger }),
        processing,
        watchStore,
        minAgeMs,
        everyMs,
        ...(maxAgeMs !== undefined && { maxAgeMs }),
        ...(batch !== undefined && { batch }),
        ...(concurrency !== undefined && { concurrency }),
        ...(queryLimit !== undefined && { queryLimitPerMinute: queryLimit }),
        ...(queryShare !== undefined && { querySharePerMinute: queryShare }),
        logger: stderrLogger,
        onRecovered: (event, result) => process.stdout.write(`${jsonText(recoveredLine(event, result.key))}\n`),
      });
      // A charge named on the command line is read now: it counts as old enough, and one the shared watch list
      // follows already (scheduled later, say after a failed read) is made due now.
      for (const id of values.charge ?? []) {
        await reconciler.watch(id, Date.now() - minAgeMs);
        await watchStore.due?.(id, Date.now());
      }

      const summary = async (result: RunResult) => {
        const metrics = await reconciler.metrics();
        process.stdout.write(`${jsonText({ type: 'summary', ...result, watched: metrics.watched, lagMs: metrics.lagMs })}\n`);
        return result;
      };
      if (values.once) {
        const result = await summary(await reconciler.runOnce());
        await processing.close();
        return result.failed > 0 ? 1 : 0;
      }
      const signalled = untilSignal();
      let stopped = false;
      void signalled.then(() => (stopped = true));
      while (!stopped) {
        await summary(await reconciler.runOnce());
        await sleepUnless(everyMs, signalled);
      }
      await processing.close();
      return 0;
    } catch (error) {
      if (error instanceof PixApiError || error instanceof PixNetworkError || error instanceof PixResponseError) {
        process.stderr.write(`pixhook reconcile: ${jsonText(error.message)}\n`);
        return 1;
      }
      const code = (error as { code?: unknown } | null)?.code;
      if (redisUrl && typeof code === 'string' && /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT)$/.test(code)) {
        process.stderr.write(`pixhook reconcile: redis unreachable at ${redactedUrl(redisUrl)}\n`);
        return 1;
      }
      if (error instanceof Error && /MaxRetriesPerRequest|Connection is closed/.test(error.message)) {
        process.stderr.write(`pixhook reconcile: redis unreachable at ${redactedUrl(redisUrl ?? '')}\n`);
        return 1;
      }
      throw error;
    } finally {
      await shared.close();
    }
  });
}

function recoveredLine(event: PixEvent, key: string | undefined): Record<string, unknown> {
  const resource = event.kind === 'transaction' ? event.transaction : event.transfer;
  return {
    type: 'recovered',
    event: event.name,
    chargeId: resource.id,
    status: resource.status,
    amountInCents: resource.amountInCents,
    ...(key && { key }),
    source: 'reconcile',
  };
}

function share(value: string): number {
  return checkNumber('--query-share', /^\d{1,3}(?:\.\d{1,6})?$/.test(value) ? Number(value) : value, { min: 0.01, max: 1, integer: false });
}

// Between runs, a signal ends the wait at once.
function sleepUnless(ms: number, signalled: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    void signalled.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
