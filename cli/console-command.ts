import { isLoopback } from '../src/console/console-security.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DeliveryJournal, PaymentBook } from '../src/index.js';
import { createConsole, createWatchdog, type Watchdog } from '../src/console/index.js';
import { checkAlertUrl } from '../src/console/alert-post.js';
import { redactedUrl } from '../src/shared/redacted-url.js';
import { parseCommandLine, portFrom, requirePackage, runCommand, untilSignal, UsageError } from './shared/cli-args.js';
import { closeClient, connectRedis } from './shared/redis-backend.js';
import { stderrLogger } from './shared/stderr-logger.js';
import { openPostgresPool } from './shared/postgres-pool.js';
import { checkHealth } from '../src/processing/health-checks.js';
import { withHealthRoute } from './shared/health-route.js';
import type { CommandHelp } from './shared/command-help.js';
import { redisEnvHelp } from './shared/redis-backend.js';

export const consoleHelp: CommandHelp = {
  usage: 'console (--redis <url> | --postgres <url>) [--port 4001] [--host 127.0.0.1] [--token <t>] [--alert-url <url>]',
  about:
    'Serves the console over a journal and a book shared by your receivers (Redis or Postgres), and GET /healthz (200 when both answer, else 503). Binds 127.0.0.1; any other address needs a token.',
  flags: [
    { flag: '--redis <url>', meaning: 'read the journal and the book from this Redis (default: PIXHOOK_REDIS_URL)' },
    { flag: '--postgres <url>', meaning: 'read the journal and the book from this PostgreSQL (default: PIXHOOK_POSTGRES_URL)' },
    { flag: '--port <n>', meaning: 'the port to listen on, 0–65535 (0: any free port) (default 4001)' },
    { flag: '--host <h>', meaning: 'the address to listen on; anything but loopback needs --token (default 127.0.0.1)' },
    { flag: '--token <t>', meaning: 'the token every request must carry, at least 16 characters (default: PIXHOOK_CONSOLE_TOKEN)' },
    {
      flag: '--alert-url <url>',
      meaning:
        'run the watchdog over the journal and the book and post each alert there as JSON with a `text` field (a Slack or Teams incoming webhook) (default: PIXHOOK_ALERT_URL)',
    },
  ],
  env: {
    ...redisEnvHelp,
    PIXHOOK_POSTGRES_URL: 'the PostgreSQL URL, when neither --redis nor --postgres is given',
    PIXHOOK_CONSOLE_TOKEN: 'the console token, when no --token is given',
    PIXHOOK_ALERT_URL: 'the alert URL, when no --alert-url is given',
  },
};

/**
 * `pixhook console`: the console of several instances. The address and the token are checked before
 * anything is opened: a console reachable from other machines without a token is refused (exit 2).
 */
export function consoleCommand(argv: string[]): Promise<number> {
  return runCommand('console', async () => {
    const { values } = parseCommandLine(argv, {
      redis: { type: 'string' },
      postgres: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      token: { type: 'string' },
      'alert-url': { type: 'string' },
    });
    const token = values.token ?? (process.env['PIXHOOK_CONSOLE_TOKEN'] || undefined);
    if (!isLoopback(values.host) && token === undefined)
      throw new UsageError(
        `--host ${values.host} is reachable from other machines: give --token <t> (or PIXHOOK_CONSOLE_TOKEN), or bind 127.0.0.1`,
      );
    if (token !== undefined && token.trim().length < 16)
      throw new UsageError('--token must be at least 16 characters (openssl rand -hex 16)');
    // An environment variable only when no flag chose: --postgres with PIXHOOK_REDIS_URL set is not "both".
    const flagged = values.redis !== undefined || values.postgres !== undefined;
    const redis = values.redis ?? (flagged ? undefined : process.env['PIXHOOK_REDIS_URL'] || undefined);
    const postgres = values.postgres ?? (flagged || redis !== undefined ? undefined : process.env['PIXHOOK_POSTGRES_URL'] || undefined);
    if (redis !== undefined && postgres !== undefined) throw new UsageError('give --redis or --postgres, not both');
    const alertUrl = values['alert-url'] ?? (process.env['PIXHOOK_ALERT_URL'] || undefined);
    // Checked before anything is opened, as createWatchdog checks it.
    if (alertUrl !== undefined) alertUrlFrom(alertUrl);
    if (redis === undefined && postgres === undefined)
      throw new UsageError('pixhook console needs --redis <url> or --postgres <url>: the journal and the book your receivers share');
    const port = portFrom(values.port, 4001);
    const shared = redis !== undefined ? await redisShared(redis) : await postgresShared(postgres!);
    const watchdog = alertUrl === undefined ? undefined : watchdogFor(shared, alertUrl);
    try {
      const consoleApp = createConsole({
        journal: shared.journal,
        book: shared.book,
        logger: stderrLogger,
        ...(token !== undefined && { token }),
        ...(watchdog !== undefined && { watchdog }),
      });
      // GET /healthz: the journal and the book answer (200, else 503), before the token: a load balancer has none.
      const health = { health: () => checkHealth({ journal: shared.journal, book: shared.book }, 2_000) };
      const server = createServer(withHealthRoute(health, (req, res) => consoleApp.node(req, res)));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, values.host, () => resolve());
      });
      const { port: bound } = server.address() as AddressInfo;
      const host = values.host.includes(':') ? `[${values.host}]` : values.host;
      // Armed before the ready line: a signal sent as soon as it is read must not find the default action.
      const signalled = untilSignal();
      process.stdout.write(
        `pixhook console: the journal and the book on ${shared.label}${token === undefined ? '' : '; open it once with ?token=<token>'}\nhttp://${host}:${bound}/\n`,
      );
      await signalled;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    } finally {
      watchdog?.close();
      await shared.close();
    }
    return 0;
  });
}

/** A bad `--alert-url` is a usage error (exit 2). */
function alertUrlFrom(alertUrl: string): void {
  try {
    checkAlertUrl(alertUrl);
  } catch {
    throw new UsageError('--alert-url must be an http(s) URL');
  }
}

/** The watchdog of `--alert-url`, over the journal and the book the console reads. */
function watchdogFor(shared: Shared, alertUrl: string): Watchdog {
  return createWatchdog({ journal: shared.journal, book: shared.book, alertUrl, logger: stderrLogger });
}

interface Shared {
  journal: DeliveryJournal;
  /** The payment book at its default place, as receivers keep it (timelines, held events, disputes). */
  book: PaymentBook;
  label: string;
  close(): Promise<void>;
}

async function redisShared(url: string): Promise<Shared> {
  requirePackage('ioredis');
  const { redisJournal, redisPaymentBook } = await import('../src/redis/index.js');
  const client = await connectRedis(url, 30_000);
  return {
    journal: redisJournal({ client, logger: stderrLogger }),
    book: redisPaymentBook({ client }),
    label: redactedUrl(url),
    close: () => closeClient(client),
  };
}

async function postgresShared(url: string): Promise<Shared> {
  const { postgresJournal, postgresPaymentBook } = await import('../src/postgres/index.js');
  const pool = await openPostgresPool(url, 'console');
  const book = postgresPaymentBook({ db: pool });
  // The book's tables, as a receiver using it would have made them (idempotent; one migration at a time).
  await book.migrate();
  return {
    journal: postgresJournal({ db: pool }),
    book,
    label: redactedUrl(url),
    close: () => pool.end(),
  };
}
