import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { mapLimit, paidDelivery, sendUntilAccepted } from './deliveries.js';
import { countBy, startReceiver, stopAllFixtures, type FixtureProcess } from './fixture-process.js';

let server: RedisServer;
const receivers: { process: FixtureProcess; url: string }[] = [];

beforeAll(async () => {
  server = await startRedisServer();
  receivers.push(...(await Promise.all([1, 2].map(() => startReceiver({ REDIS_URL: server.url, MODE: 'inline' })))));
});

afterAll(async () => {
  await stopAllFixtures();
  await server.dispose();
});

describe('two receiver processes sharing one Redis', () => {
  it('handles each event exactly once when every delivery goes to both, alternately and concurrently', async () => {
    const events = Array.from({ length: 300 }, (_, i) => paidDelivery(`tx_shared_${i}`));
    // Each event is delivered 4 times: twice to each receiver, all at once.
    const sends = events.flatMap((delivery, i) => [0, 1, 2, 3].map((n) => ({ delivery, url: receivers[(i + n) % 2]!.url })));
    const results = await mapLimit(sends, 64, ({ delivery, url }) => sendUntilAccepted(url, delivery, { pauseMs: 20 }));
    expect(results.every((r) => r.status === 200)).toBe(true);

    const handled = [...receivers.flatMap((r) => r.process.lines)].filter((l) => typeof l['handled'] === 'string');
    const perKey = countBy(handled, 'handled');
    expect(perKey.size).toBe(events.length);
    expect([...perKey.values()].every((n) => n === 1)).toBe(true);
    // Both processes did real work: the shared store, not luck, kept the other one out.
    for (const r of receivers) expect(r.process.lines.some((l) => typeof l['handled'] === 'string')).toBe(true);
    console.log(`shared dedupe: ${sends.length} deliveries of ${events.length} events → ${handled.length} handled`);
  });
});
