import { createRedisClient } from '../../src/redis/redis-url.js';
import { CommandFailure, durationFlag, flagBounds, requirePackage } from './cli-args.js';
import { redactedUrl } from '../../src/shared/redacted-url.js';

/** The least time one attempt gets, however little of `--redis-wait` is left: the documented margin. */
const attemptFloorMs = 1_000;

/**
 * Every command that talks to Redis calls this first. It connects and sends PING, each attempt
 * bounded by a timer (a server that accepts the connection and never answers passes `connect()` and
 * would hang on PING), retrying every second for at most `waitMs` (`--redis-wait`); then it fails
 * with one line (exit 1). One "waiting" line on stderr while it retries. Finishes within `waitMs`,
 * or 1 s (`attemptFloorMs`) when less was given.
 */
export async function waitForRedis(url: string, waitMs: number): Promise<void> {
  requirePackage('ioredis');
  const giveUpAt = Date.now() + waitMs;
  let said = false;
  for (let attempt = 1; ; attempt++) {
    const why = await pingOnce(url, Math.max(attemptFloorMs, giveUpAt - Date.now()));
    if (why === undefined) return;
    const left = giveUpAt - Date.now();
    if (left <= 0) {
      const within = seconds(Math.max(waitMs, attemptFloorMs));
      throw new CommandFailure(
        'redis_unavailable',
        `Redis at ${redactedUrl(url)} did not answer within ${within} (${why}; ${attempt} attempt${attempt === 1 ? '' : 's'})`,
      );
    }
    if (!said) {
      process.stderr.write(
        `pixhook: waiting for Redis at ${redactedUrl(url)} (${why}; trying every second for up to ${seconds(waitMs)})\n`,
      );
      said = true;
    }
    await new Promise((r) => setTimeout(r, Math.min(1_000, left)));
  }
}

/** One connect + PING within `budgetMs`: undefined when Redis answered, else why not. The client is always closed. */
async function pingOnce(url: string, budgetMs: number): Promise<string | undefined> {
  const client = await createRedisClient(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: budgetMs,
    // ioredis waits this long for a closed socket's end before destroying it, on a timer that holds the process.
    disconnectTimeout: 10,
  });
  // The socket's error (ECONNREFUSED, ENOTFOUND …) says more than the rejection of connect() ("Connection is closed").
  let socketError: unknown;
  client.on('error', (error: unknown) => (socketError ??= error));
  let timer: NodeJS.Timeout | undefined;
  const silent = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(silentReason(client.status)), budgetMs);
  });
  try {
    const answered = (async () => {
      await client.connect();
      await client.ping();
      return undefined;
    })().catch((error: unknown) => reasonOf(socketError ?? error));
    return await Promise.race([answered, silent]);
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}

function silentReason(status: string): string {
  return status === 'connecting' || status === 'wait' ? 'no connection' : 'the server accepted the connection and did not reply';
}

function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  const message = error instanceof Error ? error.message : String(error);
  if (/timed? ?out/i.test(message)) return 'the server did not reply';
  // A Redis reply (NOAUTH, WRONGPASS, LOADING …) is short and carries no secret; keep its first words.
  return message.split('\n')[0]!.slice(0, 120);
}

function seconds(ms: number): string {
  return ms % 1_000 === 0 ? `${ms / 1_000} s` : `${(ms / 1_000).toFixed(1)} s`;
}

/** `--redis-wait 30s` (or `2m`, `500ms`, plain ms) → milliseconds, from 0 to 24 h. */
export function redisWaitFrom(value: string): number {
  return durationFlag('--redis-wait', value, flagBounds.delayMs);
}
