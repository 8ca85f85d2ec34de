import { describe, expect, it } from 'vitest';
import { redisPaymentBook } from '../../src/redis/index.js';
import { startCli } from '../helpers/cli-process.js';
import { useRedisTarget } from '../helpers/redis-targets.js';

// `pixhook console --redis` shows the payment book the receivers share, not only their journal.
describe('pixhook console over a shared Redis book', () => {
  const target = useRedisTarget('single');

  it('serves a charge recorded by another process at /api/resources/:id', async () => {
    const book = redisPaymentBook({ client: target().client });
    await book.expect({ id: 'ch_console_book_1', amountInCents: 4321 });
    const cli = startCli(['console', '--redis', target().url, '--port', '0']);
    try {
      const [url] = await cli.waitFor(/http:\/\/127\.0\.0\.1:\d+\//, 30_000);
      const answer = await fetch(new URL('api/resources/ch_console_book_1', url));
      expect(answer.status).toBe(200);
      const resource = (await answer.json()) as { id: string; book: { kind: string; expected?: { amountInCents: number } } | null };
      expect(resource.id).toBe('ch_console_book_1');
      expect(resource.book?.kind).toBe('transaction');
      expect(resource.book?.expected?.amountInCents).toBe(4321);
      const missing = (await (await fetch(new URL('api/resources/ch_nobody', url))).json()) as { book: unknown };
      expect(missing.book ?? null).toBeNull();
    } finally {
      expect(await cli.stop()).toBe(0);
    }
  }, 60_000);
});
