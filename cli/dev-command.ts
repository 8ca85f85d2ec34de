import { internalsOf } from '../src/adapter-kit/index.js';
import { createClient } from '../src/client/index.js';
import { createConsole, recordReconcilerRuns } from '../src/console/index.js';
import { startEmulator } from '../src/emulator/index.js';
import { createReceiver, memoryJournal, memoryPaymentBook, memoryQuarantine } from '../src/index.js';
import { createReconciler } from '../src/reconcile/index.js';
import type { PayloadVariant } from '../src/events/event-types.js';
import { describeError } from '../src/shared/describe-error.js';
import { parseCommandLine, portFrom, runCommand, untilSignal, UsageError } from './shared/cli-args.js';
import type { CommandHelp } from './shared/command-help.js';
import { devSandbox } from './shared/dev-sandbox.js';
import { serveDev } from './shared/dev-server.js';
import { eventLine } from './shared/event-line.js';
import { jsonText } from './shared/json-text.js';
import { loadHandlers } from './shared/load-handlers.js';
import { stderrLogger } from './shared/stderr-logger.js';

export const devHelp: CommandHelp = {
  usage: 'dev [--port 4000] [--handlers <module>] [--variant a|b|short]',
  about:
    'A PIX sandbox in the browser: the gateway emulator, a receiver running your handlers, a payment book, a delivery journal and the console, on 127.0.0.1. Prints the URL to open as its last line; Ctrl-C stops it.',
  flags: [
    { flag: '--port <n>', meaning: 'the port of the console and the receiver, 0–65535 (0: any free port) (default 4000)' },
    { flag: '--handlers <module>', meaning: 'the module that registers your handlers (default: one that prints each event)' },
    { flag: '--variant <v>', meaning: 'the payload shape the emulator sends: a, b or short (default a)' },
  ],
};

const webhookPath = '/webhook';

/**
 * `pixhook dev`: everything in one process. The console and the receiver share one port (the
 * receiver at /webhook); the emulator listens on a port of its own, as a real gateway is elsewhere.
 * The reconciler follows every charge created from the page and runs every few seconds, so a
 * payment whose deliveries all failed is recovered while the developer watches.
 */
export function devCommand(argv: string[]): Promise<number> {
  return runCommand('dev', async () => {
    const { values } = parseCommandLine(argv, {
      port: { type: 'string' },
      handlers: { type: 'string' },
      variant: { type: 'string', default: 'a' },
    });
    const variant = values.variant;
    if (variant !== 'a' && variant !== 'b' && variant !== 'short')
      throw new UsageError(`--variant must be a, b or short, got ${jsonText(variant)}`);
    const port = portFrom(values.port, 4000);
    const register = values.handlers === undefined ? undefined : await loadHandlers(values.handlers);

    const emulator = await startEmulator({ variant: variant satisfies PayloadVariant, transferStepMs: 500 });
    const closers: (() => Promise<unknown>)[] = [() => emulator.close()];
    try {
      const book = memoryPaymentBook();
      const journal = memoryJournal({ max: 5000 });
      const quarantine = memoryQuarantine();
      const receiver = createReceiver({ secret: emulator.credentials.webhookSecret, book, quarantine, journal, logger: stderrLogger });
      if (register) await register(internalsOf(receiver).processing);
      else receiver.onAny((event, context) => void process.stdout.write(`${jsonText(eventLine(event, context))}\n`));

      const reconciler = createReconciler({
        client: createClient({ ...emulator.credentials, baseUrl: emulator.url, variant: variant === 'a' ? 'a' : 'b' }),
        processing: internalsOf(receiver).processing,
        minAgeMs: 2_000,
        retry: { backoff: [3_000, 10_000, 30_000] },
        variant,
        logger: stderrLogger,
      });
      const runs = recordReconcilerRuns(reconciler);
      const client = createClient({
        ...emulator.credentials,
        baseUrl: emulator.url,
        variant: variant === 'a' ? 'a' : 'b',
        watch: reconciler,
      });
      let running: Promise<unknown> | undefined;
      const reconcileNow = async () => {
        running ??= runs.runOnce().finally(() => (running = undefined));
        await running;
        const last = runs.runs()[0];
        return last ? `Reconciler: ${last.checked} read, ${last.recovered} recovered, ${last.failed} failed.` : 'Reconciler ran.';
      };
      const timer = setInterval(() => void reconcileNow().catch((error: unknown) => report(error)), 3_000);
      closers.push(async () => {
        clearInterval(timer);
        await running;
      });

      // Known once the server listens (--port 0 picks one).
      let webhookUrl = '';
      const served = await serveDev({
        receiver,
        port,
        webhookPath,
        console: createConsole({
          journal,
          book,
          quarantine,
          receiver,
          reconciler: runs,
          logger: stderrLogger,
          sandbox: devSandbox({ emulator, client, book, webhookUrl: () => webhookUrl, reconcile: reconcileNow }),
        }),
      });
      closers.push(
        () => served.close(),
        // Drains every run (inline ones included) before the process exits, then stops the receiver's timers.
        () => receiver.close(),
      );
      webhookUrl = `${served.url.slice(0, -1)}${webhookPath}`;
      process.stdout.write(
        [
          `pixhook dev: emulator at ${emulator.url} (variant ${variant}), webhooks signed with a secret generated for this run`,
          `pixhook dev: receiver at ${webhookUrl}${register ? ` running ${jsonText(values.handlers)}` : ' printing each event'}`,
          `pixhook dev: console, open it in a browser:`,
          served.url,
          '',
        ].join('\n'),
      );
      await untilSignal();
    } finally {
      for (const close of closers.reverse()) await close().catch(() => undefined);
    }
    return 0;
  });
}

function report(error: unknown): void {
  process.stderr.write(`pixhook dev: ${jsonText(describeError(error).split('\n')[0])}\n`);
}
