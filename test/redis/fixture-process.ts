import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { useRedisTarget, type RedisTarget, type RedisTargetName } from '../helpers/redis-targets.js';

export type Line = Record<string, unknown>;

/** A fixture script (or the CLI) running as a real child process, its stdout read as JSON lines. */
export interface FixtureProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Every JSON line printed so far. */
  readonly lines: Line[];
  stderr(): string;
  /** Resolves with the first line (already printed or to come) that matches. */
  waitFor(match: (line: Line) => boolean): Promise<Line>;
  /** Throws (with its stderr) when the process exited without being stopped: a crash fails the test at once. */
  assertRunning(): void;
  /** SIGTERM (graceful) or SIGKILL; resolves when the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const running = new Set<FixtureProcess>();

export function startFixture(script: string, env: Record<string, string>, args: string[] = []): FixtureProcess {
  const path = script.startsWith('/') ? script : fileURLToPath(new URL(`./fixtures/${script}`, import.meta.url));
  const child = spawn(process.execPath, [path, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Line[] = [];
  const waiters: { match: (line: Line) => boolean; resolve: (line: Line) => void }[] = [];
  let buffered = '';
  let errors = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const text = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      let line: Line;
      try {
        line = JSON.parse(text) as Line;
      } catch {
        continue;
      }
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.match(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
  let stopping = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const fixture: FixtureProcess = {
    child,
    pid: child.pid!,
    lines,
    stderr: () => errors,
    waitFor(match) {
      const found = lines.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        waiters.push({ match, resolve });
        void exited.then(() => reject(new Error(`${script} exited before the expected line; stderr: ${errors.slice(-2000)}`)));
      });
    },
    assertRunning() {
      if (!stopping && (child.exitCode !== null || child.signalCode !== null)) {
        throw new Error(`${script} (pid ${child.pid}) exited with ${child.exitCode ?? child.signalCode}; stderr: ${errors.slice(-2000)}`);
      }
    },
    async stop(signal = 'SIGTERM') {
      stopping = true;
      running.delete(fixture);
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
  running.add(fixture);
  return fixture;
}

/** Stops every fixture still running (for afterEach/afterAll). */
export async function stopAllFixtures(): Promise<void> {
  await Promise.all([...running].map((f) => f.stop('SIGKILL')));
}

/** Starts the receiver fixture and resolves with its URL. */
export async function startReceiver(env: Record<string, string>): Promise<{ process: FixtureProcess; url: string }> {
  const proc = startFixture('receiver.js', env);
  const line = await proc.waitFor((l) => typeof l['listening'] === 'number');
  return { process: proc, url: `http://127.0.0.1:${String(line['listening'])}/` };
}

export function countBy(lines: readonly Line[], field: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const value = line[field];
    if (typeof value === 'string') counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return counts;
}

/**
 * A real redis-server for the whole test file, and every fixture process stopped after it. Returns an
 * accessor because the server starts in beforeAll.
 */
export function useRedisWithFixtures(): () => RedisServer {
  let server: RedisServer | undefined;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await stopAllFixtures();
    await server?.dispose();
  });
  return () => {
    if (!server) throw new Error('redis-server is not started yet (use it inside a test)');
    return server;
  };
}

/** `useRedisWithFixtures` on a single server or a Redis Cluster (inside a `describe.each(redisTargetNames)`). */
export function useRedisTargetWithFixtures(kind: RedisTargetName): () => RedisTarget {
  afterAll(() => stopAllFixtures());
  return useRedisTarget(kind);
}
