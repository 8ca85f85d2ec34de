import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { mapLimit, paidDelivery, sendUntilAccepted, until } from './deliveries.js';
import { countBy, startReceiver, stopAllFixtures, type FixtureProcess } from './fixture-process.js';

let server: RedisServer;
const receivers: { process: FixtureProcess; url: string }[] = [];

beforeAll(async () => {
  server = await startRedisServer({ persistent: true });
  const env = { REDIS_URL: server.url, MODE: 'inline', CLAIM_TTL_MS: '5000' };
  receivers.push(...(await Promise.all([1, 2].map(() => startReceiver(env)))));
});

afterAll(async () => {
  await stopAllFixtures();
  await server.dispose();
});

const handledLines = () => receivers.flatMap((r) => r.process.lines).filter((l) => typeof l['handled'] === 'string');

describe('Redis stopped in the middle of a run', () => {
  it('answers 503 while it is down, never crashes, and loses or repeats nothing once it is back', async () => {
    const events = Array.from({ length: 400 }, (_, i) => paidDelivery(`tx_outage_${i}`));
    const sends = events.flatMap((delivery, i) => [0, 1].map((n) => ({ delivery, url: receivers[(i + n) % 2]!.url })));
    let unavailable = 0;
    let outage: 'before' | 'during' | 'after' = 'before';
    const run = mapLimit(sends, 16, async ({ delivery, url }) => {
      const onStatus = (status: number) => {
        if (outage === 'during' && status === 503) unavailable++;
      };
      return sendUntilAccepted(url, delivery, { pauseMs: 50, maxTries: 10_000, onStatus });
    });

    await until(() => handledLines().length >= 100);
    await server.stop();
    outage = 'during';
    await until(() => unavailable >= 20);
    await server.start();
    outage = 'after';
    const results = await run;

    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(unavailable).toBeGreaterThanOrEqual(20);
    for (const r of receivers) expect(r.process.child.exitCode).toBeNull();
    const perKey = countBy(handledLines(), 'handled');
    expect(perKey.size).toBe(events.length);
    expect([...perKey.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    const retried = results.filter((r) => r.tries > 1).length;
    expect(outage).toBe('after');
    console.log(
      `redis outage: ${sends.length} deliveries, ${unavailable} answers 503 during the outage, ${retried} deliveries retried, ${perKey.size} events handled once each`,
    );
  }, 90_000);
});
