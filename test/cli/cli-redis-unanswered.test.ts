import { createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-process.js';
import { freePort } from '../helpers/free-port.js';

// Issue 20: a Redis that accepts connections and never answers, or a refused port. Before, `listen`,
// `worker`, `worker dead-letters`, `worker replay --all` and `worker quarantine list` printed nothing
// and never ended. Now every command that talks to Redis exits 1 within `--redis-wait` (here 1 s) plus
// start-up, with one line naming the URL (password masked).
//
// The bound is the contract, so it is asserted, with generous slack for a loaded machine: a run
// still going after `killAfterMs` is killed and fails the test. The figures are printed.
const handlers = fileURLToPath(new URL('../redis/fixtures/handlers.js', import.meta.url));
const reconcileHandlers = fileURLToPath(new URL('../reconcile/fixtures/handlers.js', import.meta.url));
const killAfterMs = 20_000;
const slackMs = 12_000;
let silent: Server;
let silentPort: number;
let refusedPort: number;
let accepted = 0;
const sockets = new Set<Socket>();
const figures: string[] = [];

beforeAll(async () => {
  silent = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as { port: number }).port;
  refusedPort = await freePort();
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
  process.stdout.write(`CLI exit time against an unanswering Redis, --redis-wait 1s:\n${figures.join('\n')}\n`);
});

const reconcileEnv = { PIXHOOK_API_KEY: 'pk', PIXHOOK_API_SECRET: 'sk', PIXHOOK_BASE_URL: 'http://127.0.0.1:9' };
const commands: [string, (url: string) => string[], Record<string, string>?][] = [
  ['listen', (url) => ['listen', '--port', '0', '--secret', 'whsec_x', '--redis', url]],
  ['listen --mode durable', (url) => ['listen', '--port', '0', '--secret', 'whsec_x', '--mode', 'durable', '--redis', url]],
  ['worker', (url) => ['worker', '--redis', url, '--handlers', handlers]],
  ['worker dead-letters', (url) => ['worker', 'dead-letters', '--redis', url]],
  ['worker replay --all', (url) => ['worker', 'replay', '--all', '--redis', url]],
  ['worker quarantine list', (url) => ['worker', 'quarantine', 'list', '--redis', url]],
  ['worker quarantine replay --all', (url) => ['worker', 'quarantine', 'replay', '--all', '--handlers', handlers, '--redis', url]],
  ['reconcile --once', (url) => ['reconcile', '--once', '--handlers', reconcileHandlers, '--redis', url], reconcileEnv],
];

async function runAgainst(url: string, args: string[], env: Record<string, string> = {}) {
  const result = await runCli([...args, '--redis-wait', '1s'], { env, killAfterMs });
  const errors = result.stderr.split('\n').filter((line) => line !== '' && !line.startsWith('pixhook: waiting for Redis'));
  return { ...result, errors, url };
}

describe('a Redis that accepts the connection and never answers', () => {
  it.each(commands)(
    '%s exits 1 within --redis-wait with one line, the password masked',
    async (name, args, env) => {
      const before = accepted;
      const run = await runAgainst(
        `redis://:pass_never_printed@127.0.0.1:${silentPort}`,
        args(`redis://:pass_never_printed@127.0.0.1:${silentPort}`),
        env,
      );
      figures.push(`  silent  ${name.padEnd(32)} exit ${run.code} after ${run.ms} ms`);
      expect(run.killed).toBe(false);
      expect(run.code).toBe(1);
      // The fault happened: the command reached the server, which never answered.
      expect(accepted).toBeGreaterThan(before);
      expect(run.errors).toEqual([
        `pixhook: Redis at redis://:***@127.0.0.1:${silentPort} did not answer within 1 s (the server accepted the connection and did not reply; 1 attempt)`,
      ]);
      expect(run.stderr + run.stdout).not.toContain('pass_never_printed');
      expect(run.ms).toBeLessThan(1_000 + slackMs);
    },
    30_000,
  );

  it('a cluster URL whose seed node never answers ends the same way', async () => {
    const url = `redis+cluster://:pass_never_printed@127.0.0.1:${silentPort},127.0.0.1:${silentPort}`;
    const run = await runAgainst(url, ['worker', 'quarantine', 'list', '--redis', url]);
    figures.push(`  silent  ${'worker quarantine list (cluster)'.padEnd(32)} exit ${run.code} after ${run.ms} ms`);
    expect(run.code).toBe(1);
    expect(run.errors).toHaveLength(1);
    expect(run.errors[0]).toMatch(
      /^pixhook: Redis at redis\+cluster:\/\/:\*\*\*@127\.0\.0\.1:\d+,127\.0\.0\.1:\d+ did not answer within 1 s/,
    );
    expect(run.stderr).not.toContain('pass_never_printed');
  }, 30_000);
});

describe('a refused port', () => {
  it.each(commands)(
    '%s exits 1 after --redis-wait with one error line',
    async (name, args, env) => {
      const url = `redis://127.0.0.1:${refusedPort}`;
      const run = await runAgainst(url, args(url), env);
      figures.push(`  refused ${name.padEnd(32)} exit ${run.code} after ${run.ms} ms`);
      expect(run.killed).toBe(false);
      expect(run.code).toBe(1);
      expect(run.errors).toHaveLength(1);
      expect(run.errors[0]).toMatch(
        new RegExp(
          `^pixhook: Redis at redis://127\\.0\\.0\\.1:${refusedPort} did not answer within 1 s \\(ECONNREFUSED; \\d+ attempts?\\)$`,
        ),
      );
      expect(run.ms).toBeLessThan(1_000 + slackMs);
    },
    30_000,
  );
});
