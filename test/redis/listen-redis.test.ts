import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mapLimit, paidDelivery, sendUntilAccepted, testSecret, until } from './deliveries.js';
import { countBy, type FixtureProcess, startFixture, useRedisWithFixtures } from './fixture-process.js';

const bin = fileURLToPath(new URL('../../bin/pixhook.js', import.meta.url));
const redisServer = useRedisWithFixtures();

async function listen(mode: string): Promise<{ process: FixtureProcess; url: string }> {
  const proc = startFixture(bin, { PIXHOOK_SECRET: testSecret }, [
    'listen',
    '--port',
    '0',
    '--path',
    '/hook',
    '--redis',
    redisServer().url,
    '--mode',
    mode,
  ]);
  let url: string | undefined;
  await until(() => {
    proc.assertRunning();
    url = /listening on (http:\/\/127\.0\.0\.1:\d+\/hook)/.exec(proc.stderr())?.[1];
    return url !== undefined;
  });
  return { process: proc, url: url! };
}

describe('pixhook listen --redis', () => {
  for (const mode of ['inline', 'durable']) {
    it(`${mode}: two listeners on one Redis print each event once between them`, async () => {
      const listeners = [await listen(mode), await listen(mode)];
      const events = Array.from({ length: 50 }, (_, i) => paidDelivery(`tx_listen_${mode}_${i}`));
      const sends = events.flatMap((delivery, i) => [0, 1].map((n) => ({ delivery, url: listeners[(i + n) % 2]!.url })));
      const results = await mapLimit(sends, 16, ({ delivery, url }) => sendUntilAccepted(url, delivery, { pauseMs: 20 }));
      expect(results.every((r) => r.status === 200)).toBe(true);

      const printed = () =>
        countBy(
          listeners.flatMap((l) => l.process.lines).filter((l) => l['event'] === 'transaction_paid'),
          'key',
        );
      await until(() => printed().size === events.length);
      await Promise.all(listeners.map((l) => l.process.stop()));
      expect([...printed().values()].every((n) => n === 1)).toBe(true);
      expect(listeners[0]!.process.stderr()).toContain(`mode ${mode}`);
      for (const l of listeners) expect(l.process.child.exitCode).toBe(0);
    }, 60_000);
  }

  it('refuses --mode durable without a Redis URL (exit 2)', () => {
    const run = spawnSync(process.execPath, [bin, 'listen', '--port', '0', '--secret', testSecret, '--mode', 'durable'], {
      encoding: 'utf8',
      env: { ...process.env, PIXHOOK_REDIS_URL: '' },
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--redis <url>');
  });
});
