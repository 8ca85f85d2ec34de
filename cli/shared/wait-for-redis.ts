import { PixhookError } from '../../src/index.js';
import { UsageError } from '../cli-args.js';
import { redactedUrl } from '../redis-backend.js';

/**
 * Redis unreachable at start: try again every second, saying so on stderr, for at most `waitMs`,
 * then fail with one line (exit 1) instead of hanging.
 */
export async function waitForRedis(url: string, waitMs: number): Promise<void> {
  const { Redis } = await import('ioredis');
  const giveUpAt = Date.now() + waitMs;
  for (let attempt = 1; ; attempt++) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2_000 });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.ping();
      return;
    } catch (error) {
      const why = (error as { code?: string }).code ?? (error as Error).message;
      if (Date.now() >= giveUpAt) {
        throw new PixhookError('redis_unavailable', `Redis at ${redactedUrl(url)} is unreachable (${why}); gave up after ${Math.round(waitMs / 1000)} s`);
      }
      process.stderr.write(`pixhook: waiting for Redis at ${redactedUrl(url)} (${why}; attempt ${attempt}, up to ${Math.round(waitMs / 1000)} s)\n`);
      await new Promise((r) => setTimeout(r, Math.min(1_000, Math.max(0, giveUpAt - Date.now()))));
    } finally {
      client.disconnect();
    }
  }
}

/** `--redis-wait 30s` (or ms digits) → milliseconds. */
export function redisWaitFrom(value: string): number {
  const match = /^(\d+)(ms|s)?$/.exec(value);
  if (!match) throw new UsageError(`--redis-wait must be like 30s or 5000ms, got ${JSON.stringify(value)}`);
  return Number(match[1]) * (match[2] === 'ms' ? 1 : 1000);
}
