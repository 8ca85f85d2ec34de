import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { PixhookConfigError, type InvalidDelivery } from '../../src/index.js';
import { redisQuarantine, type NodeRedisLikeClient } from '../../src/redis/index.js';
import { redisTargetNames, useRedisTargets } from '../helpers/redis-targets.js';

const target = useRedisTargets();

const encoder = new TextEncoder();

function delivery(body: string | Uint8Array, extra: Partial<InvalidDelivery> = {}): InvalidDelivery {
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  return {
    reason: 'payload_invalid',
    message: 'transaction.amount: expected non-negative integer cents, found string',
    bytes,
    headers: { 'content-type': 'application/json', 'x-signature': 'sha256=' + 'ab'.repeat(32) },
    receivedAt: '2026-11-23T05:00:00.000Z',
    ...extra,
  };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe.each(redisTargetNames)('redisQuarantine on %s', (name) => {
  // One prefix per test carries a {hash tag}, as a Cluster requires of this store's four keys.
  let client: ReturnType<typeof target>['client'];
  beforeEach(() => {
    client = target(name).client;
  });

  it('keeps the exact bytes, headers, reason and message under the sha256 of the bytes', async () => {
    const q = redisQuarantine({ client, prefix: '{q1}:' });
    const body = '{"event":"transaction_paid","transaction":{"id":"t1","amount":"2500","status":"paid"},"name":"José 💸"}';
    const d = delivery(body, { json: JSON.parse(body) });
    const id = await q.put(d);
    expect(id).toBe(sha256(d.bytes));
    const shown = await q.show(id);
    expect(shown).toMatchObject({
      id,
      reason: 'payload_invalid',
      message: d.message,
      headers: d.headers,
      receivedAt: d.receivedAt,
      deliveries: 1,
    });
    expect(Buffer.from(shown!.bytes).equals(Buffer.from(d.bytes))).toBe(true);
    expect(shown!.json).toEqual(JSON.parse(body));
    expect(Date.parse(shown!.lastReceivedAt)).not.toBeNaN();
  });

  it('keeps bytes that are not UTF-8 or JSON losslessly, and gives no json for them', async () => {
    const q = redisQuarantine({ client, prefix: '{q2}:' });
    const bytes = new Uint8Array([0x00, 0xff, 0xfe, 0x7b, 0x22, 0xc3, 0x28, 0x0a, 0x80]);
    const id = await q.put(delivery(bytes, { reason: 'json_invalid', message: 'not JSON' }));
    const shown = await q.show(id);
    expect(shown?.reason).toBe('json_invalid');
    expect([...shown!.bytes]).toEqual([...bytes]);
    expect(shown).not.toHaveProperty('json');
  });

  it('keeps a body sliced out of a larger buffer exactly (byteOffset respected)', async () => {
    const q = redisQuarantine({ client, prefix: '{q3}:' });
    const whole = encoder.encode('XXXX{"event":"x"}YYYY');
    const slice = whole.subarray(4, whole.length - 4);
    const id = await q.put(delivery(slice));
    expect(id).toBe(sha256(encoder.encode('{"event":"x"}')));
    expect(new TextDecoder().decode((await q.show(id))!.bytes)).toBe('{"event":"x"}');
  });

  it('deduplicates by body hash: the sender’s retries count deliveries, the first copy stays', async () => {
    const q = redisQuarantine({ client, prefix: '{q4}:' });
    const first = await q.put(delivery('{"same":1}', { receivedAt: '2026-11-23T05:00:00.000Z' }));
    for (let i = 1; i <= 4; i++) {
      expect(await q.put(delivery('{"same":1}', { receivedAt: `2026-11-23T05:0${i}:00.000Z` }))).toBe(first);
    }
    const other = await q.put(delivery('{"same":2}'));
    expect(other).not.toBe(first);
    const list = await q.list();
    expect(list).toHaveLength(2);
    expect(list.find((e) => e.id === first)).toMatchObject({ deliveries: 5, receivedAt: '2026-11-23T05:00:00.000Z', size: 10 });
    expect(list.find((e) => e.id === other)).toMatchObject({ deliveries: 1 });
  });

  it('lists newest first, by range, without the bytes', async () => {
    const q = redisQuarantine({ client, prefix: '{q5}:' });
    const ids: string[] = [];
    // One put at a time, each after the Redis clock moved, so the order is the order of the puts.
    for (let i = 0; i < 5; i++) {
      ids.push(await q.put(delivery(`{"n":${i}}`)));
      await sleep(3);
    }
    expect((await q.list()).map((e) => e.id)).toEqual([...ids].reverse());
    expect((await q.list({ start: 1, end: 2 })).map((e) => e.id)).toEqual([ids[3], ids[2]]);
    expect(await q.list({ start: 3, end: 1 })).toEqual([]);
    expect(Object.keys((await q.list())[0]!).sort()).toEqual([
      'deliveries',
      'id',
      'lastReceivedAt',
      'message',
      'reason',
      'receivedAt',
      'size',
    ]);
  });

  it('is bounded: past maxEntries the body delivered longest ago is evicted, with its bytes', async () => {
    const q = redisQuarantine({ client, prefix: '{q6}:', maxEntries: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await q.put(delivery(`{"k":${i}}`)));
      await sleep(3);
    }
    expect((await q.list()).map((e) => e.id)).toEqual([ids[4], ids[3], ids[2]]);
    expect(await q.show(ids[0]!)).toBeUndefined();
    expect(await client.hlen('{q6}:bodies')).toBe(3);
    expect(await client.hlen('{q6}:meta')).toBe(3);
    expect(await client.hlen('{q6}:deliveries')).toBe(3);
  });

  it('a repeated delivery refreshes its place, so it is not the one evicted', async () => {
    const q = redisQuarantine({ client, prefix: '{q7}:', maxEntries: 2 });
    const a = await q.put(delivery('{"a":1}'));
    await sleep(3);
    const b = await q.put(delivery('{"b":1}'));
    await sleep(3);
    await q.put(delivery('{"a":1}'));
    await sleep(3);
    const c = await q.put(delivery('{"c":1}'));
    expect((await q.list()).map((e) => e.id)).toEqual([c, a]);
    expect(await q.show(b)).toBeUndefined();
  });

  it('forgets a body ttlMs after its last delivery, keys included', async () => {
    const short = redisQuarantine({ client, prefix: '{q8}:', ttlMs: 300 });
    const long = redisQuarantine({ client, prefix: '{q8}:', ttlMs: 3_600_000 });
    const id = await short.put(delivery('{"ttl":1}'));
    // A long-TTL view of the same keys never prunes it, whatever the machine's load.
    expect((await long.show(id))?.id).toBe(id);
    expect(await client.pttl('{q8}:bodies')).toBeLessThanOrEqual(300);
    await sleep(450);
    expect(await client.exists('{q8}:index', '{q8}:meta', '{q8}:bodies', '{q8}:deliveries')).toBe(0);
    expect(await short.show(id)).toBeUndefined();
  });

  it('prunes bodies past its TTL on the next call, even while the keys live on', async () => {
    const short = redisQuarantine({ client, prefix: '{q9}:', ttlMs: 300 });
    const long = redisQuarantine({ client, prefix: '{q9}:', ttlMs: 3_600_000 });
    // Written with the long TTL, so the keys live on; the entry is only past the short store's TTL.
    const old = await long.put(delivery('{"old":1}'));
    await sleep(450);
    expect((await long.list()).map((e) => e.id)).toEqual([old]);
    expect(await short.list()).toEqual([]);
    expect(await client.hexists('{q9}:bodies', old)).toBe(0);
    expect(await client.exists('{q9}:index')).toBe(0);
  });

  it('removes one body and says whether it was there', async () => {
    const q = redisQuarantine({ client, prefix: '{q10}:' });
    const id = await q.put(delivery('{"rm":1}'));
    expect(await q.remove(id)).toBe(true);
    expect(await q.remove(id)).toBe(false);
    expect(await q.show(id)).toBeUndefined();
    expect(await client.exists('{q10}:bodies')).toBe(0);
  });

  it('keeps its four keys in one Cluster slot by default', async () => {
    const q = redisQuarantine({ client });
    const id = await q.put(delivery('{"slot":1}'));
    const keys = (await target(name).keys('pixhook:{quarantine}:*')).sort();
    expect(keys).toEqual([
      'pixhook:{quarantine}:bodies',
      'pixhook:{quarantine}:deliveries',
      'pixhook:{quarantine}:index',
      'pixhook:{quarantine}:meta',
    ]);
    await q.remove(id);
  });

  it('works through a node-redis shaped client too', async () => {
    const nodeRedis: NodeRedisLikeClient = {
      eval: (script, { keys, arguments: args }) => client.eval(script, keys.length, ...keys, ...args),
      evalSha: (sha, { keys, arguments: args }) => client.evalsha(sha, keys.length, ...keys, ...args),
      isReady: true,
    };
    const q = redisQuarantine({ client: nodeRedis, prefix: '{q11}:' });
    const id = await q.put(delivery('{"node":"redis"}'));
    expect((await q.list()).map((e) => e.id)).toEqual([id]);
    expect(new TextDecoder().decode((await q.show(id))!.bytes)).toBe('{"node":"redis"}');
  });

  it('fails fast when the client says it is not connected, and refuses bad options', async () => {
    const down: NodeRedisLikeClient = {
      eval: () => Promise.reject(new Error('must not be called')),
      evalSha: () => Promise.reject(new Error('must not be called')),
      isReady: false,
    };
    await expect(redisQuarantine({ client: down }).put(delivery('{}'))).rejects.toThrow(/not connected/);
    expect(() => redisQuarantine({ client, ttlMs: 0 })).toThrow(PixhookConfigError);
    expect(() => redisQuarantine({ client, maxEntries: 1.5 })).toThrow(/maxEntries/);
  });

  it('refuses a custom prefix without a {hash tag} on a Cluster, with the fix in the message; a single server takes it', () => {
    if (name === 'cluster') {
      expect(() => redisQuarantine({ client, prefix: 'shop:quarantine:' })).toThrow(PixhookConfigError);
      expect(() => redisQuarantine({ client, prefix: 'shop:quarantine:' })).toThrow(
        /must carry a \{hash tag\} on a Redis Cluster.*such as "shop:\{quarantine\}:"/,
      );
      // An empty tag hashes the whole key: no slot is shared.
      expect(() => redisQuarantine({ client, prefix: 'shop:{}:' })).toThrow(PixhookConfigError);
    } else {
      expect(() => redisQuarantine({ client, prefix: 'shop:quarantine:' })).not.toThrow();
    }
    expect(() => redisQuarantine({ client, prefix: 'shop:{pixhook}:' })).not.toThrow();
  });
});
