import { describe, expect, it } from 'vitest';
import { mapLimit, paidDelivery, sendUntilAccepted, until, type Delivery } from './deliveries.js';
import { countBy, type FixtureProcess, startFixture, startReceiver, useRedisTargetWithFixtures } from './fixture-process.js';
import { redisTargetNames } from '../helpers/redis-targets.js';

const uniqueEvents = 7_000;
const deliveries = 10_000; // 3 000 duplicates: 30 %

/** A fixed shuffle, so runs are comparable; duplicates land close to their originals and on the other receiver. */
function schedule(): Delivery[] {
  const events = Array.from({ length: uniqueEvents }, (_, i) => paidDelivery(`tx_fault_${i}`, 100 + i));
  const list = [...events, ...events.slice(0, deliveries - uniqueEvents)];
  let seed = 42;
  for (let i = list.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = Math.min(i, i - (seed % 64));
    [list[i], list[Math.max(0, j)]] = [list[Math.max(0, j)]!, list[i]!];
  }
  return list;
}

describe.each(redisTargetNames)(
  'fault run on %s: 10 000 deliveries, 30 % duplicates, two receivers, 5 % handler failures, a worker killed',
  (kind) => {
    const redisTarget = useRedisTargetWithFixtures(kind);

    it('loses nothing and runs nothing again after its success was recorded', async () => {
      const startedAt = performance.now();
      const env = { REDIS_URL: redisTarget().url, QUEUE_NAME: 'fault' };
      const receivers = await Promise.all([1, 2].map(() => startReceiver({ ...env, MODE: 'durable' })));
      const workerEnv = { ...env, CONCURRENCY: '20', FAIL_RATE: '0.05', HOLD_MS: '20', ATTEMPTS: '10' };
      // The first worker stops finishing handlers after 1 500 successes, so the kill lands mid-handler for certain.
      const workers: FixtureProcess[] = [
        startFixture('worker.js', { ...workerEnv, BLOCK_AFTER: '1500' }),
        startFixture('worker.js', workerEnv),
      ];
      await Promise.all(workers.map((w) => w.waitFor((l) => l['ready'] === true)));
      const killed = workers[0]!;

      const running = () => [...workers, ...receivers.map((r) => r.process)].forEach((p) => p.assertRunning());
      let resent = 0;

      const send = mapLimit(schedule(), 48, async (delivery, i) => {
        const result = await sendUntilAccepted(receivers[i % 2]!.url, delivery, { pauseMs: 20, maxTries: 500 });
        resent += result.tries - 1;
        return result;
      });

      // Mid-run: SIGKILL the first worker once a handler has signalled it is held mid-run, then replace it.
      await until(() => (running(), killed.lines.some((l) => typeof l['holding'] === 'string')), 1);
      await killed.stop('SIGKILL');
      const replacement = startFixture('worker.js', workerEnv);
      workers.push(replacement);
      const results = await send;
      const sentAt = performance.now();

      const all = () => workers.flatMap((w) => w.lines);
      // Done when BullMQ has finished every job (a job the killed worker completed may lack its "acked" line).
      const redis = redisTarget().connect();
      const finishedJobs = async () => (await redis.zcard('{pixhook}:fault:completed')) + (await redis.zcard('{pixhook}:fault:failed'));
      await until(async () => (running(), (await finishedJobs()) >= uniqueEvents), 100);
      const finishedAt = performance.now();

      expect(results.every((r) => r.status === 200)).toBe(true);
      const handled = countBy(all(), 'handled');
      const failedRuns = all().filter((l) => typeof l['failed'] === 'string').length;
      const ackedByKilled = new Set(killed.lines.filter((l) => typeof l['acked'] === 'string').map((l) => l['acked'] as string));
      const handledByKilled = countBy(killed.lines, 'handled');
      const twice = [...handled.entries()].filter(([, n]) => n > 1).map(([key]) => key);
      // A second success is a bug unless the first was the killed worker's, cut off before BullMQ recorded it.
      const twiceAfterRecordedSuccess = twice.filter(
        (key) => ackedByKilled.has(key) || (handled.get(key) ?? 0) - (handledByKilled.get(key) ?? 0) > 1,
      );
      // Runs the killed worker had started and never finished: the kill landed in the middle of these handlers.
      const settled = new Set(
        killed.lines
          .filter((l) => typeof (l['handled'] ?? l['failed']) === 'string')
          .map((l) => `${String(l['handled'] ?? l['failed'])}#${String(l['attempt'])}`),
      );
      const cutOff = killed.lines
        .filter((l) => typeof l['started'] === 'string' && !settled.has(`${String(l['started'])}#${String(l['attempt'])}`))
        .map((l) => l['started'] as string);
      const lost = Array.from({ length: uniqueEvents }, (_, i) => paidDelivery(`tx_fault_${i}`, 100 + i).key).filter(
        (key) => !handled.has(key),
      );

      const counts = await redis.zcard('{pixhook}:fault:completed');
      const deadLetters = await redis.zcard('{pixhook}:fault:failed');
      redis.disconnect();

      console.log(
        [
          `fault run on ${kind}: ${deliveries} deliveries (${deliveries - uniqueEvents} duplicates) over 2 receivers, ${resent} resends after 503`,
          `  unique events ${uniqueEvents} · jobs completed ${counts} · dead letters ${deadLetters}`,
          `  handler runs failed (injected 5 %) ${failedRuns} · succeeded ${[...handled.values()].reduce((a, b) => a + b, 0)}`,
          `  worker killed after ${handledByKilled.size} successes with ${cutOff.length} handlers mid-run; keys that succeeded twice ${twice.length} (after a recorded success: ${twiceAfterRecordedSuccess.length})`,
          `  lost ${lost.length} · handled twice after success ${twiceAfterRecordedSuccess.length}`,
          `  durations: deliveries ${((sentAt - startedAt) / 1000).toFixed(1)} s, all handled ${((finishedAt - startedAt) / 1000).toFixed(1)} s`,
        ].join('\n'),
      );

      expect(lost).toEqual([]);
      expect(twiceAfterRecordedSuccess).toEqual([]);
      expect(deadLetters).toBe(0);
      expect(counts).toBe(uniqueEvents);
      expect(failedRuns).toBeGreaterThan(0);
      expect(cutOff.length).toBeGreaterThan(0);
      for (const key of cutOff) expect(handled.has(key)).toBe(true);
      expect(twice.length).toBeLessThanOrEqual(20); // at most one worker's concurrency was cut off
      await Promise.all([...workers, ...receivers.map((r) => r.process)].map((p) => p.stop()));
    }, 170_000);
  },
);
