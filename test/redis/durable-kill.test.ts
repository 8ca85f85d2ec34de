import { describe, expect, it } from 'vitest';
import { paidDelivery, post, until } from './deliveries.js';
import { countBy, startFixture, startReceiver, useRedisTargetWithFixtures } from './fixture-process.js';
import { redisTargetNames } from '../helpers/redis-targets.js';

describe.each(redisTargetNames)('durable mode on %s, worker killed in the middle of a handler', (kind) => {
  const redis = useRedisTargetWithFixtures(kind);

  it('runs every acknowledged event after a worker restarts, once', async () => {
    const env = { REDIS_URL: redis().url, QUEUE_NAME: 'kill' };
    const receiver = await startReceiver({ ...env, MODE: 'durable' });
    // This worker's handlers never finish: it is killed while it holds 5 jobs.
    const doomed = startFixture('worker.js', { ...env, CONCURRENCY: '5', HOLD_MS: '600000' });
    await doomed.waitFor((l) => l['ready'] === true);

    const events = Array.from({ length: 20 }, (_, i) => paidDelivery(`tx_kill_${i}`));
    const statuses = await Promise.all(events.map((delivery) => post(receiver.url, delivery)));
    expect(statuses.every((s) => s === 200)).toBe(true);

    await until(() => doomed.lines.filter((l) => typeof l['started'] === 'string').length === 5);
    await doomed.stop('SIGKILL');
    const inHand = doomed.lines.filter((l) => typeof l['started'] === 'string').map((l) => l['started']);
    expect(inHand).toHaveLength(5);
    expect(doomed.lines.some((l) => typeof l['handled'] === 'string')).toBe(false);

    const restarted = startFixture('worker.js', { ...env, CONCURRENCY: '5' });
    await Promise.all(events.map((e) => restarted.waitFor((l) => l['acked'] === e.key)));
    const handled = countBy(restarted.lines, 'handled');
    expect(handled.size).toBe(events.length);
    expect([...handled.values()].every((n) => n === 1)).toBe(true);
    for (const key of inHand) expect(handled.get(key as string)).toBe(1);
    await restarted.stop();
    await receiver.process.stop();
  }, 60_000);
});
