import { readFile } from 'node:fs/promises';
import { createApiPixReceiver } from '../src/api-pix/index.js';
import { createReceiver } from '../src/index.js';
import {
  parseCommandLine,
  portFrom,
  requirePackage,
  retryFlags,
  retryFlagsHelp,
  retryFromFlags,
  runCommand,
  secretEnvHelp,
  secretFlagHelp,
  secretsFrom,
  untilSignal,
  UsageError,
} from './shared/cli-args.js';
import { createForwarder } from './shared/listen-forward.js';
import type { CommandHelp } from './shared/command-help.js';
import { openRedisBackend, redisEnvHelp, redisFlags, redisFlagsHelp, redisUrlFrom, redisWaitFrom } from './shared/redis-backend.js';
import { serveReceiver, unknownPathLine } from './shared/serve-receiver.js';
import { redactSecrets } from '../src/shared/redact-secrets.js';
import { eventLine, queuedLine } from './shared/event-line.js';
import { loadHandlers } from './shared/load-handlers.js';
import { internalsOf } from '../src/adapter-kit/index.js';
import type { QueuedEvent } from '../src/index.js';
import { withDeliveryLines } from './shared/delivery-lines.js';
import { signatureFlags, signatureFlagsHelp, signingFrom } from './shared/signature-flags.js';
import { stderrLogger } from './shared/stderr-logger.js';
import { waitForRedis } from './shared/wait-for-redis.js';
import { jsonText } from './shared/json-text.js';

export const listenHelp: CommandHelp = {
  usage: 'listen [--port 4000] [--path /webhooks/pix] [flags]',
  about:
    'A local receiver: one JSON line on stdout per event handed to handlers; every other outcome (rejected, duplicate, unknown) one line on stderr with its reason; and on stderr one --> / <-- pair per delivery with its answer (a 401 with the hint to check the secret).',
  flags: [
    secretFlagHelp,
    { flag: '--port <n>', meaning: 'the port to listen on, 0–65535 (0: any free port) (default 4000)' },
    { flag: '--host <h>', meaning: 'the address to listen on (default 127.0.0.1)' },
    { flag: '--path <p>', meaning: 'the webhook path (default /webhooks/pix)' },
    { flag: '--mode <m>', meaning: 'inline (handlers run before the answer), background or durable (needs --redis) (default inline)' },
    {
      flag: '--handlers <module>',
      meaning:
        'with --mode durable: also run a worker in this process with the handlers this module registers (without it, listen only queues: run pixhook worker --handlers)',
    },
    { flag: '--forward-to <url>', meaning: 'also forward every verified delivery, byte for byte, to this http(s) URL' },
    ...redisFlagsHelp('dedupe on Redis (and the queue in durable mode)'),
    ...retryFlagsHelp({ attempts: 3, delayMs: 500 }, ', --mode background only'),
    ...signatureFlagsHelp,
    {
      flag: '--profile <p>',
      meaning: 'gateway (signed deliveries) or api-pix (the standard API Pix: /pix /rec /cobr below --path) (default gateway)',
    },
    { flag: '--tls-cert <file>', meaning: "api-pix: the server's certificate (PEM); with --tls-key and --tls-ca, Node terminates mTLS" },
    { flag: '--tls-key <file>', meaning: "api-pix: the server's private key (PEM)" },
    {
      flag: '--tls-ca <file>',
      meaning: "api-pix: the PSP's CA (PEM); without the three TLS flags the secret is checked in the URL (?secret=…)",
    },
  ],
  env: { ...secretEnvHelp, ...redisEnvHelp },
};

/**
 * A local receiver: one JSON line on stdout per event handed to handlers; every other outcome
 * (rejections, duplicates, unknown events) one line on stderr with its reason.
 */
export function listenCommand(argv: string[]): Promise<number> {
  return runCommand('listen', async () => {
    const { values } = parseCommandLine(argv, {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      path: { type: 'string', default: '/webhooks/pix' },
      secret: { type: 'string', multiple: true },
      mode: { type: 'string', default: 'inline' },
      'forward-to': { type: 'string' },
      handlers: { type: 'string' },
      ...retryFlags,
      ...redisFlags,
      ...signatureFlags,
      profile: { type: 'string', default: 'gateway' },
      'tls-cert': { type: 'string' },
      'tls-key': { type: 'string' },
      'tls-ca': { type: 'string' },
    });
    const apiPix = profileFrom(values.profile) === 'api-pix';
    const tls = apiPix ? await tlsFrom(values) : refuseTls(values);
    if (
      apiPix &&
      (values['forward-to'] !== undefined || values['signature-header'] !== undefined || values['signature-scheme'] !== 'sha256')
    )
      throw new UsageError('--profile api-pix is not signed: drop --forward-to, --signature-scheme and --signature-header');
    const mode = values.mode;
    if (mode !== 'inline' && mode !== 'background' && mode !== 'durable')
      throw new UsageError(`--mode must be inline, background or durable, got ${jsonText(mode)}`);
    const redisUrl = redisUrlFrom(values.redis, mode === 'durable');
    const path = values.path.startsWith('/') ? values.path : `/${values.path}`;
    const port = portFrom(values.port, 4000);
    // mTLS needs no secret; the gateway profile and api-pix without TLS (the URL's ?secret=…) do.
    const secret = apiPix && tls !== undefined ? [] : secretsFrom(values.secret);
    const signature = signingFrom(values);
    const forwardTo = forwardUrlFrom(values['forward-to']);
    const redisWait = redisWaitFrom(values['redis-wait']);
    const retry = retryFromFlags(values);
    const retryGiven = Object.keys(retry).length > 0;
    // In the other modes nothing in this process retries: a flag given there would be ignored.
    if (retryGiven && mode !== 'background') {
      throw new UsageError(
        `--attempts, --backoff-ms, --backoff-factor and --max-backoff-ms apply to --mode background only, got --mode ${mode}`,
      );
    }

    if (values.handlers !== undefined && mode !== 'durable')
      throw new UsageError(`--handlers runs an in-process worker for --mode durable only, got --mode ${mode}`);
    const register = values.handlers === undefined ? undefined : await loadHandlers(values.handlers);

    if (mode === 'durable') requirePackage('bullmq');
    if (redisUrl !== undefined) await waitForRedis(redisUrl, redisWait);
    // Durable: each event is printed as it is queued; a worker runs here only on the handlers of --handlers.
    const durable =
      mode === 'durable'
        ? { worker: register !== undefined, onQueued: (job: QueuedEvent) => process.stdout.write(`${jsonText(queuedLine(job))}\n`) }
        : undefined;
    const redis = redisUrl === undefined ? undefined : await openRedisBackend(redisUrl, durable, stderrLogger, redisWait);
    const forwarder = forwardTo === undefined ? undefined : createForwarder(forwardTo, (line) => process.stderr.write(line));
    let receiver;
    let served;
    let listening = '';
    // A failure from here on closes the Redis connections first: nothing opened may keep the process alive.
    try {
      const processingOptions = {
        mode: mode as 'inline' | 'background' | 'durable',
        logger: stderrLogger,
        ...(retryGiven && { retry }),
        ...(redis && { store: redis.store, queue: redis.queue }),
      };
      receiver = apiPix
        ? createApiPixReceiver({
            auth: tls !== undefined ? { mtls: { ca: tls.ca } } : { urlSecret: { secret: secret[0]! } },
            ...processingOptions,
          })
        : createReceiver({ secret, signature, ...processingOptions });
      if (mode !== 'durable')
        receiver.onAny((event, context) => {
          process.stdout.write(`${jsonText(eventLine(event, context))}\n`);
        });
      if (register !== undefined) await register(internalsOf(receiver).processing);
      await redis?.start(receiver);
      served = await serveReceiver({
        // One `-->` / `<--` pair per delivery on stderr (stdout keeps one JSON line per handled event).
        receiver: withDeliveryLines(
          forwarder?.wrap(receiver) ?? receiver,
          (text) => process.stderr.write(text),
          () => listening,
          apiPix ? 'api-pix' : 'gateway',
        ),
        host: values.host,
        port,
        path,
        onUnknownPath: (method, target) => process.stderr.write(redactSecrets(unknownPathLine(method, target, path))),
        ...(apiPix && { subpaths: true }),
        ...(tls !== undefined && { tls }),
      });
    } catch (error) {
      await redis?.close();
      throw error;
    }
    listening = redactSecrets(served.url);
    const forwarding = forwardTo === undefined ? '' : `, forwarding verified deliveries to ${forwardTo}`;
    const worker =
      mode !== 'durable'
        ? ''
        : register === undefined
          ? ', queue only: no worker runs here (run pixhook worker --handlers <module>, or give --handlers)'
          : ', a worker runs the --handlers here';
    // Armed before the ready line: a signal sent as soon as it is read must not find the default action.
    const signalled = untilSignal();
    process.stderr.write(
      `pixhook: listening on ${served.url} (${apiPix ? `API Pix, ${tls !== undefined ? 'mTLS' : 'URL secret'}, ` : ''}mode ${mode}, ${served.framework}${forwarding}${redis ? ', dedupe on Redis' : ''}${worker})\n`,
    );
    await signalled;
    await served.close();
    await receiver.close();
    await forwarder?.drain();
    await redis?.close();
    return 0;
  });
}

function forwardUrlFrom(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
    throw new UsageError(`--forward-to must be an http(s) URL, got ${jsonText(value)}`);
  return url.href;
}

function profileFrom(value: string): 'gateway' | 'api-pix' {
  if (value !== 'gateway' && value !== 'api-pix') throw new UsageError(`--profile must be gateway or api-pix, got ${jsonText(value)}`);
  return value;
}

type TlsValues = { 'tls-cert'?: string | undefined; 'tls-key'?: string | undefined; 'tls-ca'?: string | undefined };

function refuseTls(values: TlsValues): undefined {
  if (values['tls-cert'] !== undefined || values['tls-key'] !== undefined || values['tls-ca'] !== undefined)
    throw new UsageError('--tls-cert, --tls-key and --tls-ca apply to --profile api-pix only');
  return undefined;
}

/** The three PEM files, or none of them (then the URL secret authenticates). */
async function tlsFrom(values: TlsValues): Promise<{ cert: string; key: string; ca: string } | undefined> {
  const given = [values['tls-cert'], values['tls-key'], values['tls-ca']];
  if (given.every((value) => value === undefined)) return undefined;
  if (given.some((value) => value === undefined)) throw new UsageError('give --tls-cert, --tls-key and --tls-ca together');
  const read = async (flag: string, file: string) => {
    try {
      return await readFile(file, 'utf8');
    } catch {
      throw new UsageError(`${flag}: cannot read ${jsonText(file)}`);
    }
  };
  return {
    cert: await read('--tls-cert', values['tls-cert']!),
    key: await read('--tls-key', values['tls-key']!),
    ca: await read('--tls-ca', values['tls-ca']!),
  };
}
