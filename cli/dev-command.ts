import { internalsOf } from '../src/adapter-kit/index.js';
import { createClient } from '../src/client/index.js';
import { createConsole, recordReconcilerRuns } from '../src/console/index.js';
import { startEmulator } from '../src/emulator/index.js';
import { createReceiver, memoryJournal, memoryPaymentBook, memoryQuarantine } from '../src/index.js';
import { rerunHandlers } from './shared/dev-rerun.js';
import { createReconciler } from '../src/reconcile/index.js';
import type { PayloadVariant } from '../src/events/event-types.js';
import { describeError } from '../src/shared/describe-error.js';
import { redactSecrets } from '../src/shared/redact-secrets.js';
import { redactedUrl } from '../src/shared/redacted-url.js';
import { parseCommandLine, portFrom, runCommand, untilSignal, UsageError } from './shared/cli-args.js';
import type { CommandHelp } from './shared/command-help.js';
import { runApiPixDev } from './shared/dev-api-pix.js';
import { isPspProfileName } from './send-psp.js';
import { runPspDev } from './shared/dev-psp.js';
import { devForwarder } from './shared/dev-forward.js';
import { devSandbox } from './shared/dev-sandbox.js';
import { devControls } from './shared/dev-controls.js';
import { devSecretLines } from './shared/dev-secret-lines.js';
import { printJournalDeliveries } from './shared/delivery-lines.js';
import { serveDev } from './shared/dev-server.js';
import { eventLine } from './shared/event-line.js';
import { jsonText } from './shared/json-text.js';
import { loadHandlers } from './shared/load-handlers.js';
import { stderrLogger } from './shared/stderr-logger.js';

export const devHelp: CommandHelp = {
  usage:
    'dev [--profile gateway|api-pix|<psp>] [--port 4000] [--secret <s>] [--handlers <module> | --forward-to <url>] [--variant a|b|short]',
  about:
    'A PIX sandbox in the browser: the gateway emulator, a receiver at /webhooks/pix running your handlers (or forwarding to your own app), a payment book, a delivery journal and the console, on 127.0.0.1. Prints a webhook secret it generated as PIXHOOK_SECRET=… (one you give is never printed), then the URL to open as its last line, then one --> / <-- pair per delivery with its answer (`pixhook trigger` plays whole scenarios on it); Ctrl-C stops it. With --profile api-pix: the standard PSP over mTLS and a receiver behind mTLS instead, printing the run’s certificate paths.',
  flags: [
    {
      flag: '--profile <p>',
      meaning:
        "gateway (default); api-pix: the standard PSP over mTLS, a receiver behind mTLS with the run's certificates, its webhook registered; or a PSP (mercado-pago, asaas, pagbank, woovi, pagarme): its emulator and createPspReceiver at /webhooks/<psp>; --secret, --forward-to and --variant apply to gateway only",
    },
    { flag: '--port <n>', meaning: 'the port of the console and the receiver, 0–65535 (0: any free port) (default 4000)' },
    {
      flag: '--secret <s>',
      meaning: 'the secret the emulator signs webhooks with (default: PIXHOOK_SECRET, else one generated and printed)',
    },
    { flag: '--handlers <module>', meaning: 'the module that registers your handlers (default: one that prints each event)' },
    {
      flag: '--forward-to <url>',
      meaning:
        "deliver the emulator's webhooks to your own running app (http or https) instead of the built-in receiver; the console shows its answers",
    },
    { flag: '--variant <v>', meaning: 'the payload shape the emulator sends: a, b or short (default a)' },
  ],
  env: { PIXHOOK_SECRET: 'the webhook secret, when no --secret is given' },
};

// Where every doc and `pixhook listen` put the receiver; `/webhook` (the first releases') still answers.
const webhookPath = '/webhooks/pix';
const webhookPaths = [webhookPath, '/webhook'];

/**
 * `pixhook dev`: everything in one process. The console and the receiver share one port (the
 * receiver at /webhooks/pix); the emulator listens on a port of its own, as a real gateway is elsewhere.
 * With `--forward-to`, the receiver hands each delivery to the developer's own app instead, and the
 * journal records the app's answers.
 * The reconciler follows every charge created from the page and runs every few seconds, so a
 * payment whose deliveries all failed is recovered while the developer watches.
 */
export function devCommand(argv: string[]): Promise<number> {
  return runCommand('dev', async () => {
    const { values } = parseCommandLine(argv, {
      port: { type: 'string' },
      handlers: { type: 'string' },
      secret: { type: 'string' },
      'forward-to': { type: 'string' },
      variant: { type: 'string' },
      profile: { type: 'string', default: 'gateway' },
    });
    if (isPspProfileName(values.profile)) {
      for (const flag of ['secret', 'forward-to', 'variant'] as const) {
        if (values[flag] !== undefined) throw new UsageError(`--${flag} does not apply to --profile ${values.profile}`);
      }
      const register = values.handlers === undefined ? undefined : await loadHandlers(values.handlers);
      await runPspDev({ psp: values.profile, port: portFrom(values.port, 4000), register, handlersName: values.handlers });
      return 0;
    }
    if (values.profile !== 'gateway' && values.profile !== 'api-pix')
      throw new UsageError(
        `--profile must be gateway, api-pix, mercado-pago, asaas, pagbank, woovi or pagarme, got ${jsonText(values.profile)}`,
      );
    if (values.profile === 'api-pix') {
      for (const flag of ['secret', 'forward-to', 'variant'] as const) {
        if (values[flag] !== undefined)
          throw new UsageError(`--${flag} does not apply to --profile api-pix: the standard API Pix is not signed and has one body shape`);
      }
      const port = portFrom(values.port, 4000);
      const register = values.handlers === undefined ? undefined : await loadHandlers(values.handlers);
      await runApiPixDev({ port, register, handlersName: values.handlers });
      return 0;
    }
    const variant = values.variant ?? 'a';
    if (variant !== 'a' && variant !== 'b' && variant !== 'short')
      throw new UsageError(`--variant must be a, b or short, got ${jsonText(variant)}`);
    const port = portFrom(values.port, 4000);
    const secret = devSecretFrom(values.secret);
    const forwardTo = forwardUrlFrom(values['forward-to']);
    if (forwardTo !== undefined && values.handlers !== undefined)
      throw new UsageError('--handlers and --forward-to exclude each other: your app runs its own handlers');
    const register = values.handlers === undefined ? undefined : await loadHandlers(values.handlers);

    const emulator = await startEmulator({
      variant: variant satisfies PayloadVariant,
      transferStepMs: 500,
      ...(secret !== undefined && { webhookSecret: secret }),
    });
    const closers: (() => Promise<unknown>)[] = [() => emulator.close()];
    try {
      const book = memoryPaymentBook();
      const journal = memoryJournal({ max: 5000 });
      const quarantine = memoryQuarantine();
      const receiver = createReceiver({ secret: emulator.credentials.webhookSecret, book, quarantine, journal, logger: stderrLogger });
      const forwarder =
        forwardTo === undefined
          ? undefined
          : devForwarder({ target: forwardTo, secret: emulator.credentials.webhookSecret, journal, report });
      if (register) await register(internalsOf(receiver).processing);
      else if (forwarder === undefined)
        receiver.onAny((event, context) => void process.stdout.write(`${jsonText(eventLine(event, context))}\n`));

      const reconciler = createReconciler({
        client: createClient({
          ...emulator.credentials,
          baseUrl: emulator.url,
          variant: variant === 'a' ? 'a' : 'b',
          logger: stderrLogger,
        }),
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
        logger: stderrLogger,
      });
      let running: Promise<unknown> | undefined;
      const reconcileNow = async () => {
        running ??= runs.runOnce().finally(() => (running = undefined));
        await running;
        const last = runs.runs()[0];
        return last ? `Reconciler: ${last.checked} read, ${last.recovered} recovered, ${last.failed} failed.` : 'Reconciler ran.';
      };
      // Forwarding, the handlers are your app's: a payment recovered here would reach none of them, so the
      // reconciler does not run (your app's own reconciler follows its charges).
      const timer =
        forwarder === undefined ? setInterval(() => void reconcileNow().catch((error: unknown) => report(error)), 3_000) : undefined;
      closers.push(async () => {
        clearInterval(timer);
        await running;
      });

      // Known once the server listens (--port 0 picks one).
      let webhookUrl = '';
      const sandbox = devSandbox({
        emulator,
        client,
        book,
        webhookUrl: () => webhookUrl,
        ...(forwarder === undefined && { reconcile: reconcileNow }),
        ...(register !== undefined && forwarder === undefined && { rerun: (body: string) => rerunHandlers(register, body) }),
      });
      const served = await serveDev({
        receiver,
        port,
        webhookPaths,
        ...(forwarder && { receive: forwarder.handle }),
        controls: devControls({
          profile: 'gateway',
          sandbox,
          journal,
          processing: forwarder === undefined ? internalsOf(receiver).processing : undefined,
          receiver: () => redactedUrl(forwardTo ?? webhookUrl),
        }),
        console: createConsole({
          journal,
          book,
          quarantine,
          // Forwarding, a Replay or Release here would run this process's receiver, not your app: none is offered.
          ...(forwarder === undefined && { receiver, reconciler: runs }),
          logger: stderrLogger,
          sandbox,
        }),
      });
      closers.push(
        () => served.close(),
        // Drains every run (inline ones included) before the process exits, then stops the receiver's timers.
        () => receiver.close(),
        async () => forwarder?.drain(),
      );
      webhookUrl = `${served.url.slice(0, -1)}${webhookPath}`;
      // One `-->` / `<--` pair per delivery, with the answer (the built-in receiver's or your app's).
      const stopLines = printJournalDeliveries(
        journal,
        (text) => process.stdout.write(text),
        () => redactedUrl(forwardTo ?? webhookUrl),
      );
      closers.push(async () => stopLines());
      const handling = forwarder
        ? ` forwarding each delivery to ${jsonText(redactedUrl(forwardTo!))}`
        : register
          ? ` running ${jsonText(values.handlers)}`
          : ' printing each event';
      // Armed before the ready line: a signal sent as soon as it is read must not find the default action.
      const signalled = untilSignal();
      process.stdout.write(
        [
          ...devSecretLines({
            emulator: `${emulator.url} (variant ${variant})`,
            generated: secret === undefined ? emulator.credentials.webhookSecret : undefined,
            from: values.secret !== undefined ? '--secret' : 'PIXHOOK_SECRET',
            forwarding: forwardTo !== undefined,
          }),
          `pixhook dev: receiver at ${webhookUrl}${handling}`,
          `pixhook dev: console, open it in a browser:`,
          served.url,
          '',
        ].join('\n'),
      );
      await signalled;
    } finally {
      for (const close of closers.reverse()) await close().catch(() => undefined);
    }
    return 0;
  });
}

function report(error: unknown): void {
  process.stderr.write(`pixhook dev: ${jsonText(redactSecrets(describeError(error).split('\n')[0] ?? ''))}\n`);
}

/** `--secret`, else `PIXHOOK_SECRET`, else undefined (the emulator generates one, printed at start). */
function devSecretFrom(flag: string | undefined): string | undefined {
  if (flag !== undefined) {
    if (flag.trim() === '') throw new UsageError('a webhook secret must not be empty: `--secret` was given a blank value');
    return flag;
  }
  const env = process.env['PIXHOOK_SECRET'];
  if (env === undefined || env === '') return undefined;
  if (env.trim() === '') throw new UsageError('a webhook secret must not be empty: PIXHOOK_SECRET is blank; set it or unset it');
  return env;
}

function forwardUrlFrom(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
    throw new UsageError(`--forward-to must be an http(s) URL, got ${jsonText(redactedUrl(value))}`);
  return url.href;
}
