import { describe, expect, it } from 'vitest';
import { deliver, type DeliveryAttempt } from '../../src/testing/index.js';
import { paidDelivery, testSecret } from './deliveries.js';
import { countBy, startReceiver, useRedisWithFixtures } from './fixture-process.js';

const redisServer = useRedisWithFixtures();

describe('an instance killed mid-handler (two instances on one Redis, inline mode, default claim TTL)', () => {
  it('the sender’s retries on the gateway schedule (1, 2, 4, 8 s) reach the other instance, which handles the event once', async () => {
    const env = { REDIS_URL: redisServer().url, MODE: 'inline' };
    const a = await startReceiver({ ...env, HOLD_ID: 'tx_crash' });
    const b = await startReceiver(env);
    const event = paidDelivery('tx_crash', 4_200);
    // The first attempt reaches A, whose handler holds; A is killed once it says so. The rest reach B.
    let calls = 0;
    const routed: typeof fetch = (input, init) => {
      calls++;
      if (calls === 1) {
        void a.process.waitFor((l) => typeof l['holding'] === 'string').then(() => a.process.stop('SIGKILL'));
        return fetch(a.url, init);
      }
      return fetch(b.url, init);
    };
    const attempts: DeliveryAttempt[] = [];
    const result = await deliver({
      url: b.url,
      body: event.body,
      secret: testSecret,
      fetch: routed,
      onAttempt: (x) => void attempts.push(x),
    });
    const statuses = attempts.map((x) => x.status ?? 0);
    // Attempt 1 died with A; B answered in_flight while A's claim lived (≤ 5 s), then handled it.
    expect(statuses[0]).toBe(0);
    expect(statuses.at(-1)).toBe(200);
    expect(statuses.length).toBeLessThanOrEqual(5);
    expect(result.delivered).toBe(true);
    // Not answered before A's claim lapsed: B refused to run a claimed event (no double run).
    expect(statuses.slice(1, -1).every((s) => s === 503)).toBe(true);
    const handled = countBy(b.process.lines, 'handled');
    expect([...handled.values()]).toEqual([1]);
    await b.process.stop();
  }, 30_000);
});
