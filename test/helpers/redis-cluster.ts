import { spawnSync, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { freePort } from './free-port.js';
import { spawnRedisServer } from './redis-server.js';

/** A real 3-master Redis Cluster on loopback, owned by one test file. */
export interface RedisCluster {
  /** The masters' ports, in start order. */
  readonly ports: readonly number[];
  /** Seed nodes for ioredis `new Redis.Cluster(nodes)`. */
  readonly nodes: readonly { host: string; port: number }[];
  /** The CLI's form: `redis+cluster://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3`. */
  readonly url: string;
  /** One master's plain URL (a single-node client on it gets MOVED for most keys). */
  readonly nodeUrl: string;
  /** Empties every master (FLUSHALL on each). */
  flush(): Promise<void>;
  /** Stops every node and removes the directory. */
  dispose(): Promise<void>;
}

export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'pixhook-redis-cluster-'));
  await chmod(dir, 0o755);
  const ports: number[] = [];
  const children: ChildProcess[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const node = await startNodeOnFreePort(dir);
      ports.push(node.port);
      children.push(node.child);
    }
    const create = spawnSync(
      'redis-cli',
      ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'],
      { encoding: 'utf8', timeout: 30_000 },
    );
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
    await waitForClusterOk(ports);
  } catch (error) {
    await stopAll(children);
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    ports,
    nodes: ports.map((port) => ({ host: '127.0.0.1', port })),
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    nodeUrl: `redis://127.0.0.1:${ports[0]}`,
    async flush() {
      for (const port of ports) {
        const run = spawnSync('redis-cli', ['-p', String(port), 'FLUSHALL'], { encoding: 'utf8', timeout: 10_000 });
        if (run.status !== 0) throw new Error(`FLUSHALL on ${port} failed: ${run.stderr}`);
      }
    },
    async dispose() {
      await stopAll(children);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// A port probed free can be taken by another test's server before redis-server binds it (files run in parallel),
// and a node also binds its cluster bus at port + 10 000: pick ports whose bus fits and is free, and try again with
// another port when the bind loses that race.
async function startNodeOnFreePort(dir: string): Promise<{ port: number; child: ChildProcess }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freeClusterPort();
    try {
      return { port, child: await startNode(port, dir) };
    } catch (error) {
      if (attempt >= 5 || !String(error).includes('Address already in use')) throw error;
    }
  }
}

async function freeClusterPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 10_000 <= 65_535 && (await isFree(port + 10_000))) return port;
  }
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

async function startNode(port: number, dir: string): Promise<ChildProcess> {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    join(dir, `nodes-${port}.conf`),
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    '--logfile',
    '',
  ];
  const { child, started } = spawnRedisServer(args, `redis-server (cluster node ${port})`);
  await started;
  return child;
}

// `cluster_state:ok` on every node: each has learned the whole slot map, so no client is sent MOVED by a stale node.
async function waitForClusterOk(ports: number[]): Promise<void> {
  for (let round = 0; round < 300; round++) {
    const ok = ports.every((port) => {
      const info = spawnSync('redis-cli', ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8', timeout: 5_000 });
      return info.stdout.includes('cluster_state:ok');
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the Redis Cluster did not reach cluster_state:ok in 30 s');
}

async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (proc) =>
        new Promise<void>((resolve) => {
          if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
          proc.once('exit', () => resolve());
          proc.kill('SIGTERM');
        }),
    ),
  );
}
