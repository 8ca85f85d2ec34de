import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createReceiver, type InvalidDelivery } from '../../src/index.js';
import { redisDedupeStore, redisQuarantine } from '../../src/redis/index.js';
import { runCli } from '../helpers/cli-process.js';
import { redisTargetNames, useRedisTargets, type RedisTarget } from '../helpers/redis-targets.js';
import { sign, testSecret } from './deliveries.js';

const target = useRedisTargets();
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pixhook-quarantine-'));
  // A handlers module per target that appends one line per handled event to a file.
  for (const name of redisTargetNames) {
    await writeFile(
      join(dir, `handlers-${name}.js`),
      `import { appendFileSync } from 'node:fs';\nexport default (p) => p.onAny((event, context) => appendFileSync(${JSON.stringify(join(dir, `handled-${name}.log`))}, JSON.stringify({ key: context.key, source: context.source }) + '\\n'));\n`,
    );
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let client: RedisTarget['client'];

function receiverOn() {
  const invalid: InvalidDelivery[] = [];
  const receiver = createReceiver({ secret: testSecret, store: redisDedupeStore({ client }) });
  receiver.onInvalid((d) => void invalid.push(d));
  return { receiver, invalid };
}

const post = (receiver: ReturnType<typeof receiverOn>['receiver'], body: string) =>
  receiver.receive({ method: 'POST', headers: { 'x-signature': sign(body), 'x-trace': 'kept' }, body });

async function handledLines(name: string): Promise<{ key: string; source: string }[]> {
  const text = await readFile(join(dir, `handled-${name}.log`), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { key: string; source: string });
}

describe.each(redisTargetNames)('nothing verified is thrown away, on %s', (name) => {
  beforeEach(() => {
    client = target(name).client;
  });

  it('a verified body missing an essential: 400, onInvalid gets the exact bytes and headers, the Redis store quarantines it once', async () => {
    const { receiver, invalid } = receiverOn();
    const body = JSON.stringify({ event: 'transaction_paid', data: { id: 'tx_q1', status: 'paid', amountInCents: '12.50' } });
    for (let i = 0; i < 3; i++) expect(await post(receiver, body)).toMatchObject({ status: 400, reason: 'payload_invalid' });
    expect(invalid).toHaveLength(3);
    expect(new TextDecoder().decode(invalid[0]!.bytes)).toBe(body);
    expect(invalid[0]!.headers['x-trace']).toBe('kept');
    expect(invalid[0]!.json).toEqual(JSON.parse(body));
    const listed = await redisQuarantine({ client }).list();
    const entry = listed.find((e) => e.reason === 'payload_invalid' && e.deliveries === 3);
    expect(entry?.message).toMatch(/amount/);
    expect(receiver.metrics().invalid).toBe(3);
  });

  it('a body that is not JSON is kept too (json_invalid)', async () => {
    const { receiver, invalid } = receiverOn();
    expect(await post(receiver, 'not json {')).toMatchObject({ status: 400, reason: 'json_invalid' });
    expect(invalid[0]).toMatchObject({ reason: 'json_invalid' });
    expect((await redisQuarantine({ client }).list()).some((e) => e.reason === 'json_invalid')).toBe(true);
  });

  it('worker quarantine list / show / replay: a still-invalid body stays; a readable one runs once; a replay after a later retry is a duplicate', async () => {
    const quarantine = redisQuarantine({ client });
    const put = (body: string) =>
      quarantine.put({
        reason: 'payload_invalid',
        message: 'kept by an older reader',
        bytes: new TextEncoder().encode(body),
        headers: {},
        receivedAt: new Date().toISOString(),
      });
    // Bodies an older, stricter pixhook refused (a null creditorAccount), now readable.
    const readable = JSON.stringify({
      id: 'd1',
      type: 'transfer',
      event: 'transfer_completed',
      transfer: { id: 'tr_q', amount: 500, status: 'completed', pix: { creditorAccount: null } },
    });
    const alreadyHandled = JSON.stringify({ event: 'transaction_paid', data: { id: 'tx_q_retry', status: 'paid', amountInCents: 700 } });
    const readableId = await put(readable);
    const retriedId = await put(alreadyHandled);
    // The sender's later retry of the second one succeeded before the merchant replayed.
    const { receiver } = receiverOn();
    receiver.onAny(() => {});
    expect((await post(receiver, alreadyHandled)).status).toBe(200);

    const redis = ['--redis', target(name).url];
    const listed = await runCli(['worker', 'quarantine', 'list', ...redis]);
    expect(listed.code).toBe(0);
    expect(
      listed.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { id: string }).id),
    ).toEqual(expect.arrayContaining([readableId, retriedId]));
    const shown = await runCli(['worker', 'quarantine', 'show', readableId, ...redis]);
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: readableId, body: readable });

    const handlers = ['--handlers', join(dir, `handlers-${name}.js`)];
    const invalidId = (await quarantine.list()).find((e) => e.reason === 'payload_invalid' && e.message.includes('amount'))!.id;
    const replayed = await runCli(['worker', 'quarantine', 'replay', readableId, retriedId, invalidId, ...redis, ...handlers]);
    const lines = replayed.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      { id: readableId, replayed: true, key: expect.stringMatching(/^transfer_completed:tr_q:completed:500/) },
      { id: retriedId, replayed: true, reason: 'duplicate', key: expect.stringMatching(/^transaction_paid:tx_q_retry:paid:700/) },
      { id: invalidId, replayed: false, why: expect.stringMatching(/^payload_invalid/) },
    ]);
    expect(replayed.code).toBe(1);
    expect(await handledLines(name)).toEqual([{ key: expect.stringMatching(/^transfer_completed:tr_q/), source: 'replay' }]);
    expect(await quarantine.show(readableId)).toBeUndefined();
    expect(await quarantine.show(invalidId)).toBeDefined();
    // Replaying again runs nothing twice.
    const again = await runCli(['worker', 'quarantine', 'replay', readableId, ...redis, ...handlers]);
    expect(again.code).toBe(1);
    expect(await handledLines(name)).toHaveLength(1);
  }, 30_000);
});
