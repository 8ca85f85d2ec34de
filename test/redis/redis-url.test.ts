import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Cluster } from 'ioredis';
import { createRedisClient, parseRedisUrl } from '../../src/redis/redis-url.js';
import { startRedisCluster, type RedisCluster } from '../helpers/redis-cluster.js';
import { redactedUrl } from '../../src/shared/redacted-url.js';

describe('parseRedisUrl', () => {
  test('a single server with a password-only auth and a database', () => {
    expect(parseRedisUrl('redis://:p%40ss@127.0.0.1:6380/2')).toEqual({
      cluster: false,
      nodes: [{ host: '127.0.0.1', port: 6380 }],
      tls: false,
      password: 'p@ss',
      db: 2,
    });
  });

  test('a cluster by its seed nodes, TLS and the default port', () => {
    expect(parseRedisUrl('rediss+cluster://user:pw@a:7000,b')).toEqual({
      cluster: true,
      nodes: [
        { host: 'a', port: 7000 },
        { host: 'b', port: 6379 },
      ],
      tls: true,
      username: 'user',
      password: 'pw',
    });
  });

  test('refuses other schemes, several hosts without +cluster, and a cluster database — never echoing the password', () => {
    expect(() => parseRedisUrl('http://x')).toThrow(
      /^pixhook: `url` must be a redis:\/\/, rediss:\/\/, redis\+cluster:\/\/ or rediss\+cluster:\/\/ URL/,
    );
    let message = '';
    try {
      parseRedisUrl('redis://u:secret@a:1,b:2');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^pixhook: `url` must use redis\+cluster/);
    expect(message).not.toContain('secret');
    expect(() => parseRedisUrl('redis+cluster://a:1/3')).toThrow(/`url` must name database 0 or none/);
    expect(() => parseRedisUrl('redis://a:99999')).toThrow(/`url` must list each host as host or host:port/);
  });

  test('redactedUrl masks the password', () => {
    expect(redactedUrl('redis://u:secret@h:1')).toBe('redis://u:***@h:1');
  });
});

describe('createRedisClient on a real 3-master cluster', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  });
  afterAll(async () => {
    await cluster?.dispose();
  });

  test('keys on every slot are reachable through the seed nodes', async () => {
    const client = await createRedisClient(cluster.url);
    try {
      for (let i = 0; i < 30; i++) await client.set(`k${i}`, String(i));
      expect(await client.get('k17')).toBe('17');
      expect(client).toBeInstanceOf(Cluster);
    } finally {
      await client.quit();
    }
  });
});

test('redactedUrl masks a password holding a raw @, / or ?', () => {
  for (const url of ['redis://u:p@ss@h:1', 'redis://u:p/ss@h:1', 'redis://:a?b@h:1']) {
    const masked = redactedUrl(url);
    expect(masked).toContain('***@h:1');
    expect(masked).not.toMatch(/ss@|a\?b/);
  }
});
