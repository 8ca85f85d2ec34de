import { createReceiver } from '../src/index.js';
import type { PixEvent } from '../src/events/event-types.js';
import type { HandlerContext } from '../src/index.js';
import type { Logger } from '../src/index.js';
import { parseCommandLine, portFrom, runCommand, secretsFrom, untilSignal, UsageError } from './cli-args.js';
import { createForwarder } from './listen-forward.js';
import { openRedisBackend, redisUrlFrom } from './redis-backend.js';
import { serveReceiver } from './serve-receiver.js';

const usage = 'listen --port <n> --path <p> --secret <s> [--host 127.0.0.1] [--mode inline|background|durable] [--redis <url>] [--forward-to <url>]';

/**
 * A local receiver: one JSON line on stdout per event handed to handlers; every other outcome
 * (rejections, duplicates, unknown events) one line on stderr with its reason.
 */
export function listenCommand(argv: string[]): Promise<number> {
  return runCommand(usage, async () => {
    const { values } = parseCommandLine(argv, {
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      path: { type: 'string', default: '/webhooks/pix' },
      secret: { type: 'string', multiple: true },
      mode: { type: 'string', default: 'inline' },
      'forward-to': { type: 'string' },
      redis: { type: 'string' },
    });
    const mode = values.mode;
    if (mode !== 'inline' && mode !== 'background' && mode !== 'durable') throw new UsageError(`--mode must be inline, background or durable, got "${mode}"`);
    const redisUrl = redisUrlFrom(values.redis, mode === 'durable');
    const path = values.path.startsWith('/') ? values.path : `/${values.path}`;

    const secret = secretsFrom(values.secret);
    const forwardTo = forwardUrlFrom(values['forward-to']);
    const redis = redisUrl === undefined ? undefined : await openRedisBackend(redisUrl, mode === 'durable', stderrLogger);
    const receiver = createReceiver({ secret, mode, logger: stderrLogger, ...(redis && { store: redis.store, queue: redis.queue }) });
    receiver.onAny((event, context) => {
      process.stdout.write(`${JSON.stringify(eventLine(event, context))}\n`);
    });
    await redis?.start(receiver);

    const forwarder = forwardTo === undefined ? undefined : createForwarder(forwardTo, (line) => process.stderr.write(line));
    const served = await serveReceiver({ receiver: forwarder?.wrap(receiver) ?? receiver, host: values.host, port: portFrom(values.port, 4000), path });
    const forwarding = forwardTo === undefined ? '' : `, forwarding verified deliveries to ${forwardTo}`;
    process.stderr.write(`pixhook: listening on ${served.url} (mode ${mode}, ${served.framework}${forwarding}${redis ? ', dedupe on Redis' : ''})\n`);
    await untilSignal();
    await served.close();
    await receiver.drain();
    await forwarder?.drain();
    await redis?.close();
    return 0;
  });
}

/** What `listen` prints per handled event: enough to see what happened, never the secret. */
export function eventLine(event: PixEvent, context: HandlerContext): Record<string, unknown> {
  const resource = event.kind === 'transaction' ? event.transaction : event.transfer;
  return {
    event: event.name,
    kind: event.kind,
    id: resource.id,
    status: resource.status,
    amountInCents: resource.amountInCents,
    variant: event.variant,
    ...(event.deliveryId !== undefined && { deliveryId: event.deliveryId }),
    ...(event.scope !== undefined && { scope: event.scope }),
    ...(resource.endToEndId !== undefined && { endToEndId: resource.endToEndId }),
    key: context.key,
    attempt: context.attempt,
    receivedAt: new Date().toISOString(),
  };
}

/** Delivery outcomes other than "handled" (those go to stdout), one line each. */
export const stderrLogger: Logger = {
  info: (fields, message) => writeLogLine(fields, message),
  warn: (fields, message) => writeLogLine(fields, message),
  error: (fields, message) => writeLogLine(fields, message),
};

function writeLogLine(fields: object, message = ''): void {
  const f = fields as Record<string, unknown>;
  if (message === 'pixhook: delivery') {
    if (f['reason'] === 'handled') return;
    const parts = [f['status'], f['reason'], f['event'], f['resourceId']].filter((p) => p !== undefined);
    const hint = typeof f['hint'] === 'string' ? ` (${f['hint']})` : '';
    process.stderr.write(`pixhook: ${Number(f['status']) < 300 ? 'acknowledged' : 'rejected'} ${parts.join(' ')}${hint}\n`);
    return;
  }
  process.stderr.write(`${message} ${JSON.stringify(fields)}\n`);
}

function forwardUrlFrom(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') throw new UsageError(`--forward-to must be an http(s) URL, got "${value}"`);
  return url.href;
}
