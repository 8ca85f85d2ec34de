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
import { eventLine } from './shared/event-line.js';
import { signatureFlags, signatureFlagsHelp, signingFrom } from './shared/signature-flags.js';
import { stderrLogger } from './shared/stderr-logger.js';
import { waitForRedis } from './shared/wait-for-redis.js';
import { jsonText } from './shared/json-text.js';

export const listenHelp: CommandHelp = {
  usage: 'listen [--port 4000] [--path /webhooks/pix] [flags]',
  about:
    'A local receiver: one JSON line on stdout per event handed to handlers; every other outcome (rejected, duplicate, unknown) one line on stderr with its reason.',
  flags: [
    secretFlagHelp,
    { flag: '--port <n>', meaning: 'the port to listen on, 0–65535 (0: any free port) (default 4000)' },
    { flag: '--host <h>', meaning: 'the address to listen on (default 127.0.0.1)' },
    { flag: '--path <p>', meaning: 'the webhook path (default /webhooks/pix)' },
    { flag: '--mode <m>', meaning: 'inline (handlers run before the answer), background or durable (needs --redis) (default inline)' },
    { flag: '--forward-to <url>', meaning: 'also forward every verified delivery, byte for byte, to this http(s) URL' },
    ...redisFlagsHelp('dedupe on Redis (and the queue in durable mode)'),
    ...retryFlagsHelp({ attempts: 3, delayMs: 500 }, ', --mode background only'),
    ...signatureFlagsHelp,
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
      ...retryFlags,
      ...redisFlags,
      ...signatureFlags,
    });
    const mode = values.mode;
    if (mode !== 'inline' && mode !== 'background' && mode !== 'durable')
      throw new UsageError(`--mode must be inline, background or durable, got ${jsonText(mode)}`);
    const redisUrl = redisUrlFrom(values.redis, mode === 'durable');
    const path = values.path.startsWith('/') ? values.path : `/${values.path}`;
    const port = portFrom(values.port, 4000);
    const secret = secretsFrom(values.secret);
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

    if (mode === 'durable') requirePackage('bullmq');
    if (redisUrl !== undefined) await waitForRedis(redisUrl, redisWait);
    const redis = redisUrl === undefined ? undefined : await openRedisBackend(redisUrl, mode === 'durable', stderrLogger, redisWait);
    const forwarder = forwardTo === undefined ? undefined : createForwarder(forwardTo, (line) => process.stderr.write(line));
    let receiver;
    let served;
    // A failure from here on closes the Redis connections first: nothing opened may keep the process alive.
    try {
      receiver = createReceiver({
        secret,
        mode,
        signature,
        logger: stderrLogger,
        ...(retryGiven && { retry }),
        ...(redis && { store: redis.store, queue: redis.queue }),
      });
      receiver.onAny((event, context) => {
        process.stdout.write(`${jsonText(eventLine(event, context))}\n`);
      });
      await redis?.start(receiver);
      served = await serveReceiver({
        receiver: forwarder?.wrap(receiver) ?? receiver,
        host: values.host,
        port,
        path,
        onUnknownPath: (method, target) => process.stderr.write(redactSecrets(unknownPathLine(method, target, path))),
      });
    } catch (error) {
      await redis?.close();
      throw error;
    }
    const forwarding = forwardTo === undefined ? '' : `, forwarding verified deliveries to ${forwardTo}`;
    process.stderr.write(
      `pixhook: listening on ${served.url} (mode ${mode}, ${served.framework}${forwarding}${redis ? ', dedupe on Redis' : ''})\n`,
    );
    await untilSignal();
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
