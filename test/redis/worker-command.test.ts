import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, type Receiver } from '../../src/index.js';
import { createPspReceiver } from '../../src/psp/index.js';
import { createDurableQueue, redisDedupeStore, type DurableQueue } from '../../src/redis/index.js';
import { runCli } from '../helpers/cli-process.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { headersOf, paidDelivery, testSecret, until } from './deliveries.js';
import { startFixture, stopAllFixtures, type Line } from './fixture-process.js';

const bin = fileURLToPath(new URL('../../bin/pixhook.js', import.meta.url));
const handlers = fileURLToPath(new URL('./fixtures/handlers.js', import.meta.url));

let server: RedisServer;
let client: Redis;
let queue: DurableQueue;
let receiver: Receiver;

beforeAll(async () => {
  server = await startRedisServer();
  client = new Redis(server.url);
  queue = await createDurableQueue({ connection: server.url, queueName: 'cli' });
  receiver = createReceiver({ secret: testSecret, mode: 'durable', queue, store: redisDedupeStore({ client }) });
});

afterAll(async () => {
  await stopAllFixtures();
  await queue.close();
  client.disconnect();
  await server.dispose();
});

/** Runs `pixhook …` to completion. */
function pixhook(args: string[]): Promise<{ code: number | null; lines: Line[]; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.on('exit', (code) => {
      const lines = out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Line);
      resolve({ code, lines, stderr: err });
    });
  });
}

describe('pixhook worker', () => {
  it('runs queued events through --handlers, dead-letters the failing one, lists it and replays it', async () => {
    const good = paidDelivery('tx_cli_good', 4200);
    const poison = paidDelivery('tx_poison_1');
    for (const d of [good, poison]) {
      expect((await receiver.receive({ method: 'POST', headers: headersOf(d), body: d.body })).status).toBe(200);
    }

    // With the book on the worker's Redis (as a user runs it): a failed attempt leaves the payment unapplied, so the
    // queue's retry and the dead letter's replay find it still to run (issue 36 §1).
    const args = ['worker', '--redis', server.url, '--queue', 'cli', '--attempts', '2', '--backoff-ms', '10', '--handlers', handlers];
    const first = startFixture(bin, {}, args);
    const line = await first.waitFor((l) => l['id'] === 'tx_cli_good');
    expect(line).toMatchObject({ event: 'transaction_paid', status: 'paid', amountInCents: 4200, variant: 'a', key: good.key, attempt: 1 });
    await until(async () => (await queue.counts()).failed === 1);
    await first.stop();
    expect(first.child.exitCode).toBe(0);
    expect(first.lines.some((l) => l['id'] === 'tx_poison_1')).toBe(false);

    const listed = await pixhook(['worker', 'dead-letters', '--redis', server.url, '--queue', 'cli']);
    expect(listed.code).toBe(0);
    expect(listed.lines).toHaveLength(1);
    expect(listed.lines[0]).toMatchObject({ key: poison.key, name: 'transaction_paid', attemptsMade: 2 });
    expect(String(listed.lines[0]!['failedReason'])).toContain('poison pill');
    expect(listed.lines[0]).not.toHaveProperty('payload');
    expect(listed.stderr).toContain('1 dead letter on cli');

    const healed = startFixture(bin, { HEAL: '1' }, args);
    const replay = await pixhook([
      'worker',
      'replay',
      '--redis',
      server.url,
      '--queue',
      'cli',
      '--key',
      poison.key,
      '--key',
      'transaction_paid:nope:paid',
    ]);
    expect(replay.lines).toEqual([
      { key: poison.key, replayed: true },
      { key: 'transaction_paid:nope:paid', replayed: false },
    ]);
    expect(replay.code).toBe(1);
    await healed.waitFor((l) => l['id'] === 'tx_poison_1');
    await healed.stop();
    expect(await queue.listDeadLetters()).toEqual([]);
  }, 60_000);

  it('runs a PSP’s queued event (Asaas) through --handlers with its book, once, with no PSP credentials (issue 38)', async () => {
    const pspQueue = await createDurableQueue({ connection: server.url, queueName: 'cli-psp' });
    const token = 'asaas-cli-token';
    const psp = createPspReceiver({ psp: 'asaas', token, mode: 'durable', queue: pspQueue, store: redisDedupeStore({ client }) });
    const body = JSON.stringify({
      id: 'evt_cli_psp',
      event: 'PAYMENT_RECEIVED',
      dateCreated: '2026-11-28 10:00:00',
      payment: { object: 'payment', id: 'pay_cli_psp', value: 25.9, billingType: 'PIX', status: 'RECEIVED' },
    });
    const headers = { 'content-type': 'application/json', 'asaas-access-token': token };
    try {
      expect((await psp.receive({ method: 'POST', headers, body })).status).toBe(200);
      const worker = startFixture(bin, {}, ['worker', '--redis', server.url, '--queue', 'cli-psp', '--handlers', handlers]);
      const line = await worker.waitFor((l) => l['id'] === 'pay_cli_psp');
      expect(line).toMatchObject({
        event: 'transaction_paid',
        variant: 'psp',
        deliveryId: 'evt_cli_psp',
        amountInCents: 2590,
        key: 'asaas:evt:evt_cli_psp',
        attempt: 1,
      });
      await until(async () => (await pspQueue.counts()).completed === 1);
      await worker.stop();
      expect(worker.lines.filter((l) => l['id'] === 'pay_cli_psp')).toHaveLength(1);
      expect((await psp.receive({ method: 'POST', headers, body })).reason).toBe('duplicate');
      expect(await pspQueue.counts()).toMatchObject({ completed: 1, failed: 0, waiting: 0 });
    } finally {
      await psp.close();
      await pspQueue.close();
    }
  }, 60_000);

  it('refuses to run without --handlers (exit 2, one line) and leaves the queued event waiting', async () => {
    // Before, such a worker completed every job without running anything: the paid event was lost.
    const delivery = paidDelivery('tx_no_handler', 3100);
    expect((await receiver.receive({ method: 'POST', headers: headersOf(delivery), body: delivery.body })).status).toBe(200);
    const before = await queue.counts();
    expect(before.waiting).toBeGreaterThan(0);
    const run = await runCli(['worker', '--redis', server.url, '--queue', 'cli'], { killAfterMs: 20_000 });
    expect(run.killed).toBe(false);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(
      'pixhook worker: --handlers <module> is required: a worker with no handler would complete jobs without running anything (pixhook worker --help)',
    );
    expect(run.stdout).toBe('');
    expect(await queue.counts()).toEqual(before);
  });

  it("--queue 'a:b' is a usage error and the process ends (nothing left open)", async () => {
    for (const sub of [['--handlers', handlers], ['dead-letters'], ['replay', '--all']]) {
      const run = await runCli(['worker', ...sub, '--redis', server.url, '--queue', 'a:b'], { killAfterMs: 20_000 });
      expect(run.killed).toBe(false);
      expect(run.code).toBe(2);
      expect(run.stderr.split('\n')[0]).toMatch(
        /^pixhook: --queue must be a non-empty name without ':', got "a:b" \(pixhook worker[a-z -]* --help\)$/,
      );
    }
  }, 60_000);

  it('exits 2 with the usage when the Redis URL or the replay target is missing', async () => {
    const noUrl = await pixhook(['worker']);
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('--redis <url>');
    const noTarget = await pixhook(['worker', 'replay', '--redis', server.url]);
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain('--key <dedupe key>');
  });
});
