import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { paidDelivery, post, testSecret, until } from './deliveries.js';
import { startFixture, useRedisWithFixtures, type FixtureProcess } from './fixture-process.js';

const bin = fileURLToPath(new URL('../../bin/pixhook.js', import.meta.url));
const printing = fileURLToPath(new URL('./fixtures/print-handlers.js', import.meta.url));
const redisServer = useRedisWithFixtures();

async function listenDurable(extra: string[] = []): Promise<{ process: FixtureProcess; url: string }> {
  const proc = startFixture(bin, { PIXHOOK_SECRET: testSecret }, [
    'listen',
    '--port',
    '0',
    '--path',
    '/hook',
    '--redis',
    redisServer().url,
    '--mode',
    'durable',
    ...extra,
  ]);
  let url: string | undefined;
  await until(() => {
    proc.assertRunning();
    url = /listening on (http:\/\/127\.0\.0\.1:\d+\/hook)/.exec(proc.stderr())?.[1];
    return url !== undefined;
  });
  return { process: proc, url: url! };
}

describe('pixhook listen --mode durable', () => {
  it('without --handlers only queues (and says so): every job waits for the user’s `pixhook worker --handlers`', async () => {
    const listen = await listenDurable();
    expect(listen.process.stderr()).toMatch(/queue only: no worker runs here/);
    const ids = ['tx_queue_only_1', 'tx_queue_only_2', 'tx_queue_only_3'];
    for (const id of ids) expect(await post(listen.url, paidDelivery(id))).toBe(200);
    // Each event is printed as it is queued.
    await until(() => listen.process.lines.filter((line) => line['queued'] === true).length === ids.length);
    expect(listen.process.lines.map((line) => [line['event'], line['id'], line['queued']])).toEqual(
      ids.map((id) => ['transaction_paid', id, true]),
    );
    // The user's worker, started later, gets every job: none was completed by a stand-in.
    const worker = startFixture(bin, {}, ['worker', '--redis', redisServer().url, '--handlers', printing]);
    await until(() => worker.lines.filter((line) => line['handled'] !== undefined).length === ids.length);
    expect(worker.lines.filter((line) => line['handled'] !== undefined).map((line) => line['handled'])).toEqual(ids);
    await Promise.all([listen.process.stop(), worker.stop()]);
  }, 60_000);

  it('with --handlers runs a worker in process on those handlers', async () => {
    const listen = await listenDurable(['--handlers', printing]);
    expect(listen.process.stderr()).toMatch(/a worker runs the --handlers here/);
    expect(await post(listen.url, paidDelivery('tx_in_process'))).toBe(200);
    await until(() => listen.process.lines.some((line) => line['handled'] === 'tx_in_process'));
    expect(listen.process.lines.filter((line) => line['queued'] === true).map((line) => line['id'])).toEqual(['tx_in_process']);
    await listen.process.stop();
    expect(listen.process.child.exitCode).toBe(0);
  }, 60_000);

  it('refuses --handlers outside durable mode (exit 2)', async () => {
    const proc = startFixture(bin, { PIXHOOK_SECRET: testSecret }, ['listen', '--port', '0', '--handlers', printing]);
    await until(() => proc.child.exitCode !== null);
    expect(proc.child.exitCode).toBe(2);
    expect(proc.stderr()).toContain('--mode durable only');
  });
});
