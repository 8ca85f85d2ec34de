import { apiPixEnvLines } from './shared/api-pix-env-lines.js';
import { emulatorApiPixFlagsHelp } from './shared/profile-help.js';
import { startEmulator } from '../src/emulator/start-emulator.js';
import type { EmulatorSignature } from '../src/emulator/delivery-signature.js';
import type { DeliveryRecord, EmulatorDeliveryAttempt } from '../src/emulator/emulator-records.js';
import { emulatorRefusedPixKey } from '../src/emulator/gateway-state.js';
import type { PayloadVariant } from '../src/events/event-types.js';
import {
  flagBounds,
  integerFlag,
  parseCommandLine,
  portFrom,
  retryFlags,
  retryFlagsHelp,
  retryFromFlags,
  runCommand,
  untilSignal,
  UsageError,
} from './shared/cli-args.js';
import type { CommandHelp } from './shared/command-help.js';
import { escapeControls as plain } from '../src/shared/escape-controls.js';
import { jsonText } from './shared/json-text.js';
import { redactedUrl, redactedUrlsIn } from '../src/shared/redacted-url.js';

export const emulatorHelp: CommandHelp = {
  usage: 'emulator [--port 4010] [flags]',
  about:
    'Serves a local gateway until Ctrl-C: its API, and webhooks signed and retried as it sends them. Prints PIXHOOK_BASE_URL and the credentials on stdout (secrets only when generated here); requests and deliveries on stderr.',
  flags: [
    { flag: '--port <n>', meaning: 'the port to listen on, 0–65535 (0: any free port) (default 4010)' },
    { flag: '--host <h>', meaning: 'the address to listen on (default 127.0.0.1)' },
    { flag: '--api-key <k>', meaning: 'the API key clients must use (default: generated)' },
    { flag: '--api-secret <s>', meaning: 'the API secret clients must use (default: generated)' },
    { flag: '--webhook-secret <w>', meaning: 'the secret webhooks are signed with (default: generated)' },
    { flag: '--variant <v>', meaning: 'the payload shape it sends: a, b or short (default a)' },
    { flag: '--signature-scheme <s>', meaning: 'sha256 (X-Signature: sha256=<hex>) or timestamped (t=<unix>,v1=<hex>) (default sha256)' },
    { flag: '--signature-header <name>', meaning: 'the signature header, with timestamped only, e.g. Vexy-Signature' },
    ...retryFlagsHelp({ attempts: 5, delayMs: 1_000 }, ', per delivery'),
    { flag: '--delivery-timeout-ms <n>', meaning: 'a delivery with no answer by then fails, 1–86400000 ms (default 10000)' },
    {
      flag: '--transfer-step-ms <n>',
      meaning: 'each transfer step (queued → processing → outcome) after this, 0–86400000 ms (default 200)',
    },
    { flag: '--quiet', meaning: 'no request or delivery lines on stderr (default off)' },
    {
      flag: '--profile <p>',
      meaning:
        'gateway (default) or api-pix: a standard PSP (bacen/pix-api) over mTLS, with certificates made for the run; with api-pix only --port, --host, --quiet, the retry flags and the api-pix: flags below apply',
    },
    ...emulatorApiPixFlagsHelp,
  ],
};

/**
 * `pixhook emulator --profile api-pix`: a standard PSP until SIGINT/SIGTERM. Prints, on stdout, its URL, the
 * OAuth2 credentials (the secret only when generated here) and the paths of the run's certificates.
 */
function apiPixEmulatorCommand(argv: string[]): Promise<number> {
  return runCommand('emulator', async () => {
    const { values } = parseCommandLine(argv, {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      'pix-key': { type: 'string' },
      'certificates-dir': { type: 'string' },
      'group-window-ms': { type: 'string' },
      'disable-after': { type: 'string' },
      ...retryFlags,
      quiet: { type: 'boolean', default: false },
    });
    const emulator = await startEmulator({
      // The path comes from the request: JSON-escaped, so a crafted URL cannot forge a log line.
      ...(!values.quiet && {
        onRequest: (entry: { method: string; path: string; status: number }) => process.stderr.write(`${requestLine(entry)}\n`),
      }),
      profile: 'api-pix',
      port: portFrom(values.port, 4020),
      host: values.host,
      ...(values['client-id'] !== undefined && { clientId: values['client-id'] }),
      ...(values['client-secret'] !== undefined && { clientSecret: values['client-secret'] }),
      ...(values['pix-key'] !== undefined && { pixKey: values['pix-key'] }),
      ...(values['certificates-dir'] !== undefined && { certificatesDir: values['certificates-dir'] }),
      ...(values['group-window-ms'] !== undefined && {
        groupWindowMs: integerFlag('--group-window-ms', values['group-window-ms'], flagBounds.delayMs),
      }),
      ...(values['disable-after'] !== undefined && {
        disableWebhookAfterFailures: integerFlag('--disable-after', values['disable-after'], { min: 1, max: 1_000_000 }),
      }),
      retry: retryFromFlags(values),
    });
    const { certificates } = emulator;
    // Armed before the ready lines: a signal sent as soon as they are read must not find the default action.
    const signalled = untilSignal();
    process.stdout.write([...apiPixEnvLines(emulator, values['client-secret'] !== undefined), ''].join('\n'));
    if (!values.quiet) {
      process.stderr.write(
        `pixhook emulator: api-pix PSP listening on ${emulator.url} (mTLS: present ${jsonText(certificates.clientCert)}, trust ${jsonText(certificates.ca)}); controls under /_emulator\n`,
      );
    }
    await signalled;
    await emulator.close();
    return 0;
  });
}

/**
 * Serves the gateway emulator until SIGINT/SIGTERM. Prints, on stdout, the base URL and the
 * credentials as `NAME=value` lines (secrets only when generated here, never ones the user gave);
 * requests and deliveries go to stderr, one line each.
 */
export function emulatorCommand(argv: string[]): Promise<number> {
  const profileAt = argv.findIndex((arg) => arg === '--profile' || arg.startsWith('--profile='));
  if (profileAt !== -1) {
    const inline = argv[profileAt]!.startsWith('--profile=');
    const profile = inline ? argv[profileAt]!.slice('--profile='.length) : argv[profileAt + 1];
    const rest = argv.filter((_, i) => i !== profileAt && (inline || i !== profileAt + 1));
    if (profile === 'api-pix') return apiPixEmulatorCommand(rest);
    if (profile !== 'gateway')
      return runCommand('emulator', async () => {
        throw new UsageError(`--profile must be gateway or api-pix, got ${jsonText(profile ?? '')}`);
      });
    argv = rest;
  }
  return runCommand('emulator', async () => {
    const { values } = parseCommandLine(argv, {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      'api-key': { type: 'string' },
      'api-secret': { type: 'string' },
      'webhook-secret': { type: 'string' },
      variant: { type: 'string', default: 'a' },
      'signature-scheme': { type: 'string', default: 'sha256' },
      'signature-header': { type: 'string' },
      ...retryFlags,
      'delivery-timeout-ms': { type: 'string' },
      'transfer-step-ms': { type: 'string' },
      quiet: { type: 'boolean', default: false },
    });
    const variant = values.variant;
    if (variant !== 'a' && variant !== 'b' && variant !== 'short')
      throw new UsageError(`--variant must be a, b or short, got "${variant}"`);
    const signature = signatureFrom(values['signature-scheme'], values['signature-header']);
    const quiet = values.quiet;
    const log = (line: string) => {
      if (!quiet) process.stderr.write(`${line}\n`);
    };

    const emulator = await startEmulator({
      port: portFrom(values.port, 4010),
      host: values.host,
      variant: variant satisfies PayloadVariant,
      signature,
      ...(values['api-key'] !== undefined && { apiKey: values['api-key'] }),
      ...(values['api-secret'] !== undefined && { apiSecret: values['api-secret'] }),
      ...(values['webhook-secret'] !== undefined && { webhookSecret: values['webhook-secret'] }),
      retry: retryFromFlags(values),
      ...(values['delivery-timeout-ms'] !== undefined && {
        deliveryTimeoutMs: integerFlag('--delivery-timeout-ms', values['delivery-timeout-ms'], flagBounds.timeoutMs),
      }),
      ...(values['transfer-step-ms'] !== undefined && {
        transferStepMs: integerFlag('--transfer-step-ms', values['transfer-step-ms'], flagBounds.delayMs),
      }),
      // The path comes from the request: JSON-escaped, so a crafted URL cannot forge a log line.
      onRequest: (entry) => log(requestLine(entry)),
      onDeliveryAttempt: (delivery, attempt) => log(attemptLine(delivery, attempt)),
      onDelivery: (delivery) => log(deliveryLine(delivery)),
    });

    const given = (flag: 'api-secret' | 'webhook-secret', value: string) => (values[flag] === undefined ? value : '(as given)');
    // Armed before the ready lines: a signal sent as soon as they are read must not find the default action.
    const signalled = untilSignal();
    process.stdout.write(
      [
        `PIXHOOK_BASE_URL=${emulator.url}`,
        `PIXHOOK_API_KEY=${emulator.credentials.apiKey}`,
        `PIXHOOK_API_SECRET=${given('api-secret', emulator.credentials.apiSecret)}`,
        `PIXHOOK_SECRET=${given('webhook-secret', emulator.credentials.webhookSecret)}`,
        '',
      ].join('\n'),
    );
    log(`pixhook emulator: listening on ${emulator.url} (variant ${variant}); transfers to ${emulatorRefusedPixKey} are refused`);
    log(
      `pixhook emulator: deliveries: ${emulator.retry.attempts} attempts, waits ${emulator.retry.scheduleMs.join(', ')} ms; signature ${signatureLabel(signature)}`,
    );
    await signalled;
    await emulator.close();
    return 0;
  });
}

// URLs, ids and errors come from requests and receivers: every such string is escaped, every URL's credentials masked.
function attemptLine(delivery: DeliveryRecord, attempt: EmulatorDeliveryAttempt): string {
  const answer =
    attempt.status !== undefined ? `answered ${attempt.status}` : `no answer ${jsonText(redactedUrlsIn(attempt.error ?? 'unknown'))}`;
  const fault = attempt.fault ? ` (fault ${plain(attempt.fault.id)} ${plain(attempt.fault.action)})` : '';
  const next = attempt.retryInMs !== undefined ? `; retry in ${attempt.retryInMs} ms` : '';
  return `pixhook emulator: ${plain(delivery.id)} attempt ${attempt.attempt}/5 ${plain(delivery.event)} ${jsonText(delivery.resourceId)} → ${jsonText(redactedUrl(delivery.url))} ${answer}${fault}${next}`;
}

function deliveryLine(delivery: DeliveryRecord): string {
  const last = delivery.attempts.at(-1);
  const outcome = delivery.delivered ? `delivered (${last?.status ?? '?'})` : `gave up after ${delivery.attempts.length} attempts`;
  return `pixhook emulator: ${plain(delivery.id)} ${plain(delivery.event)} ${jsonText(delivery.resourceId)} → ${jsonText(redactedUrl(delivery.url))} [${plain(delivery.scope)}] ${outcome}`;
}

function signatureFrom(scheme: string, header: string | undefined): EmulatorSignature {
  if (scheme === 'sha256') {
    if (header !== undefined) throw new UsageError('--signature-header goes with --signature-scheme timestamped');
    return { scheme: 'sha256' };
  }
  if (scheme !== 'timestamped') throw new UsageError(`--signature-scheme must be sha256 or timestamped, got ${jsonText(scheme)}`);
  if (header === undefined || !/^[A-Za-z0-9-]+$/.test(header))
    throw new UsageError('--signature-scheme timestamped needs --signature-header <name> (e.g. Vexy-Signature)');
  return { scheme: 'timestamped', header };
}

function signatureLabel(signature: EmulatorSignature): string {
  return signature.scheme === 'sha256' ? 'X-Signature sha256=<hex>' : `${signature.header} t=<unix>,v1=<hex>`;
}

/** `pixhook emulator: POST "/cob/…" → 201` (0: dropped by a fault). */
function requestLine(entry: { method: string; path: string; status: number }): string {
  return `pixhook emulator: ${plain(entry.method)} ${jsonText(entry.path)} → ${entry.status === 0 ? 'dropped' : entry.status}`;
}
