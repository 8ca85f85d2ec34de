import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

export interface RedisServerOptions {
  /** Append-only file with fsync on every write, so a restart keeps every key. Default false. */
  persistent?: boolean;
  /** More redis-server arguments, after the defaults (e.g. `['--save', '3600 1']`, `['--rename-command', 'CONFIG', '']`). */
  extraArgs?: readonly string[];
}

/** A real redis-server on a free loopback port, owned by one test file. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the server (SIGTERM, waits for the exit); data stays for `start()` when persistent. */
  stop(): Promise<void>;
  /** Starts it again on the same port and directory. */
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  dispose(): Promise<void>;
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const dir = await mkdtemp(join(tmpdir(), 'pixhook-redis-'));
  let port = await freePort();
  const persistence = options.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  const argsFor = (port: number) => [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    ...persistence,
    '--dir',
    dir,
    '--logfile',
    '',
    ...(options.extraArgs ?? []),
  ];
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    if (child) return;
    const ready = spawnRedisServer(argsFor(port), 'redis-server');
    child = ready.child;
    await ready.started;
  }

  async function stop(): Promise<void> {
    const proc = child;
    if (!proc) return;
    child = undefined;
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGTERM');
    });
  }

  // A port probed free can be taken by another test's server before redis-server binds it (files run in
  // parallel): the first start tries another port when it loses that race. A restart keeps its port.
  for (let attempt = 1; ; attempt++) {
    try {
      await start();
      break;
    } catch (error) {
      child = undefined;
      if (attempt >= 5 || !String(error).includes('Address already in use')) throw error;
      port = await freePort();
    }
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    async dispose() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Spawns redis-server with `args`; `started` resolves once it accepts connections, rejects if it exits first. */
export function spawnRedisServer(args: readonly string[], label: string): { child: ChildProcess; started: Promise<void> } {
  const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const started = new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.resume();
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${label} exited with ${code}: ${output}`)));
  });
  return { child, started };
}
