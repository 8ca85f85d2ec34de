import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runProcess } from '../helpers/cli-process.js';
import { freePort } from '../helpers/free-port.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';

// Issue 20's refusals at start, each run as a user would: the built CLI as its own process. Every
// run is killed after 20 s; a refusal must come long before (no Redis is ever waited for here).
const root = fileURLToPath(new URL('../..', import.meta.url));
const workerHandlers = fileURLToPath(new URL('../redis/fixtures/handlers.js', import.meta.url));
const reconcileHandlers = fileURLToPath(new URL('../reconcile/fixtures/handlers.js', import.meta.url));
const reconcileEnv = { PIXHOOK_API_KEY: 'pk', PIXHOOK_API_SECRET: 'sk', PIXHOOK_BASE_URL: 'http://127.0.0.1:9' };
const killAfterMs = 20_000;
let refused: string;
let dir: string;

beforeAll(async () => {
  refused = `redis://127.0.0.1:${await freePort()}`;
  dir = await mkdtemp(join(tmpdir(), 'pixhook-cli-refusals-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('numeric flags are whole numbers within stated bounds (exit 2, the bound in the message)', () => {
  // Before: `--backoff-ms 1e12` was taken (and a timer past 2^31 − 1 ms fires at once: 1 ms), `--attempts 1000000000` too.
  const cases: [string, string[], RegExp, Record<string, string>?][] = [
    [
      'worker --backoff-ms 1e12',
      ['worker', '--redis', 'R', '--handlers', workerHandlers, '--backoff-ms', '1e12'],
      /`--backoff-ms` must be an integer from 0 to 86400000 \(24 h\), got the string "1e12"/,
    ],
    [
      'worker --backoff-ms 86400001',
      ['worker', '--redis', 'R', '--handlers', workerHandlers, '--backoff-ms', '86400001'],
      /`--backoff-ms` must be an integer from 0 to 86400000/,
    ],
    [
      'worker --attempts 1000000000',
      ['worker', '--redis', 'R', '--handlers', workerHandlers, '--attempts', '1000000000'],
      /`--attempts` must be an integer from 1 to 100, got 1000000000/,
    ],
    [
      'worker --attempts 0',
      ['worker', '--redis', 'R', '--handlers', workerHandlers, '--attempts', '0'],
      /`--attempts` must be an integer from 1 to 100/,
    ],
    [
      'worker --concurrency 2.5',
      ['worker', '--redis', 'R', '--handlers', workerHandlers, '--concurrency', '2.5'],
      /`--concurrency` must be an integer from 1 to 1000/,
    ],
    [
      'worker --redis-wait 25h',
      ['worker', '--redis', 'R', '--handlers', workerHandlers, '--redis-wait', '25h'],
      /`--redis-wait` must be an integer from 0 to 86400000 ms \(24 h\)/,
    ],
    [
      'listen --redis-wait 1e9s',
      ['listen', '--secret', 'whsec_x', '--redis', 'R', '--redis-wait', '1e9s'],
      /--redis-wait must be a duration like 30s/,
    ],
    [
      'emulator --backoff-ms 1e12',
      ['emulator', '--port', '0', '--backoff-ms', '1e12'],
      /`--backoff-ms` must be an integer from 0 to 86400000/,
    ],
    [
      'emulator --delivery-timeout-ms 0',
      ['emulator', '--port', '0', '--delivery-timeout-ms', '0'],
      /`--delivery-timeout-ms` must be an integer from 1 to 86400000/,
    ],
    [
      'emulator --transfer-step-ms 0.5',
      ['emulator', '--port', '0', '--transfer-step-ms', '0.5'],
      /`--transfer-step-ms` must be an integer/,
    ],
    [
      'reconcile --every 25h',
      ['reconcile', '--handlers', reconcileHandlers, '--every', '25h', '--charge', 'x'],
      /`--every` must be an integer from 1 to 86400000 ms \(24 h\)/,
      reconcileEnv,
    ],
    [
      'reconcile --batch 0',
      ['reconcile', '--handlers', reconcileHandlers, '--once', '--batch', '0', '--charge', 'x'],
      /`--batch` must be an integer from 1 to 1000/,
      reconcileEnv,
    ],
    [
      'reconcile --concurrency 1e3',
      ['reconcile', '--handlers', reconcileHandlers, '--once', '--concurrency', '1e3', '--charge', 'x'],
      /`--concurrency` must be an integer from 1 to 100/,
      reconcileEnv,
    ],
    [
      'reconcile --query-limit 1.5',
      ['reconcile', '--handlers', reconcileHandlers, '--once', '--query-limit', '1.5', '--charge', 'x'],
      /`--query-limit` must be an integer/,
      reconcileEnv,
    ],
    [
      'reconcile --query-share 0.001',
      ['reconcile', '--handlers', reconcileHandlers, '--once', '--query-share', '0.001', '--charge', 'x'],
      /`--query-share` must be a number from 0.01 to 1/,
      reconcileEnv,
    ],
    [
      'reconcile --max-age 9000h',
      ['reconcile', '--handlers', reconcileHandlers, '--once', '--max-age', '9000h', '--charge', 'x'],
      /`--max-age` must be an integer from 1 to \d+ ms \(366 days\)/,
      reconcileEnv,
    ],
    [
      'send --attempts 1000000000',
      ['send', 'transaction_paid', '--url', 'http://127.0.0.1:9/', '--secret', 'whsec_x', '--attempts', '1000000000'],
      /`--attempts` must be an integer from 1 to 100/,
    ],
    [
      'send --backoff-ms 99999999999',
      ['send', 'transaction_paid', '--url', 'http://127.0.0.1:9/', '--secret', 'whsec_x', '--backoff-ms', '99999999999'],
      /`--backoff-ms` must be an integer from 0 to 86400000/,
    ],
  ];
  it.each(cases)('%s', async (_, args, message, env) => {
    const run = await runCli(
      args.map((a) => (a === 'R' ? refused : a)),
      { env: env ?? {}, killAfterMs },
    );
    expect(run.killed).toBe(false);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toMatch(message);
  });
});

describe('--handlers that cannot be loaded is a usage error (exit 2, one line) for every command', () => {
  let broken: string;
  beforeAll(async () => {
    broken = join(dir, 'broken-handlers.js');
    await writeFile(broken, 'export default function (p) { p.on(\n');
  });
  const commands: [string, (handlers: string) => string[], Record<string, string>?][] = [
    ['reconcile', (h) => ['reconcile', '--handlers', h, '--once', '--charge', 'x'], reconcileEnv],
    ['worker', (h) => ['worker', '--redis', refused, '--handlers', h]],
  ];
  it.each(commands)('%s: a missing module', async (name, args, env) => {
    // Before, reconcile exited 1 with "unexpected error", where the README promises 2.
    const run = await runCli(args('./no-such-handlers.js'), { env: env ?? {}, killAfterMs });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`pixhook: --handlers "./no-such-handlers.js": no such module (pixhook ${name} --help)\n`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
  it.each(commands)('%s: a module with a syntax error', async (_, args, env) => {
    const run = await runCli(args(broken), { env: env ?? {}, killAfterMs });
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toMatch(/^pixhook: --handlers ".*broken-handlers\.js" cannot be loaded: SyntaxError: /);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('an optional package that is not installed: one line naming what to install, exit 1', () => {
  // The built package copied (package.json, bin, dist) into a directory whose node_modules has only
  // the dependencies, like `npm install pixhook` without the optional peers; ioredis is added for one case.
  let bare: string;
  let withIoredis: string;
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
    const { dependencies } = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    bare = await packageCopy('bare', Object.keys(dependencies));
    withIoredis = await packageCopy('with-ioredis', [...Object.keys(dependencies), 'ioredis']);
  }, 60_000);
  afterAll(async () => {
    await redis?.dispose();
  });

  async function packageCopy(name: string, modules: string[]): Promise<string> {
    const target = join(dir, name, 'node_modules', 'pixhook');
    await mkdir(join(target, 'node_modules'), { recursive: true });
    for (const part of ['package.json', 'bin', 'dist']) await cp(join(root, part), join(target, part), { recursive: true });
    for (const module of modules) {
      // A scoped package (@scope/name) needs its scope's folder first.
      await mkdir(dirname(join(target, 'node_modules', module)), { recursive: true });
      await symlink(join(root, 'node_modules', module), join(target, 'node_modules', module), 'dir');
    }
    return target;
  }

  const run = (copy: string, args: string[]) =>
    runProcess(join(copy, 'bin', 'pixhook.js'), args, { env: { NODE_PATH: undefined, ...reconcileEnv }, cwd: copy, killAfterMs });

  it('the copies really lack the packages', () => {
    const resolveFrom = (copy: string) => createRequire(join(copy, 'dist', 'cli', 'main.js'));
    expect(() => resolveFrom(bare).resolve('ioredis')).toThrow(/Cannot find module/);
    expect(() => resolveFrom(bare).resolve('bullmq')).toThrow(/Cannot find module/);
    expect(resolveFrom(withIoredis).resolve('ioredis')).toContain('ioredis');
    expect(() => resolveFrom(withIoredis).resolve('bullmq')).toThrow(/Cannot find module/);
  });

  it.each([
    [
      'listen --redis',
      ['listen', '--port', '0', '--secret', 'whsec_x', '--redis', 'R'],
      '--redis needs the optional package ioredis: npm install ioredis',
    ],
    [
      'worker quarantine list',
      ['worker', 'quarantine', 'list', '--redis', 'R'],
      '--redis needs the optional package ioredis: npm install ioredis',
    ],
    [
      'reconcile --redis',
      ['reconcile', '--handlers', reconcileHandlers, '--once', '--redis', 'R'],
      '--redis needs the optional package ioredis: npm install ioredis',
    ],
    [
      'worker',
      ['worker', '--redis', 'R', '--handlers', workerHandlers],
      'the durable queue (listen --mode durable, worker) needs the optional package bullmq: npm install bullmq',
    ],
    [
      'worker dead-letters',
      ['worker', 'dead-letters', '--redis', 'R'],
      'the durable queue (listen --mode durable, worker) needs the optional package bullmq: npm install bullmq',
    ],
  ])('without ioredis or bullmq: %s', async (_, args, line) => {
    const result = await run(
      bare,
      args.map((a) => (a === 'R' ? redis.url : a)),
    );
    expect(result.killed).toBe(false);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`pixhook: ${line}\n`);
  });

  it('with ioredis and without bullmq: listen --mode durable names bullmq, and nothing opened keeps it running', async () => {
    const result = await run(withIoredis, ['listen', '--port', '0', '--secret', 'whsec_x', '--mode', 'durable', '--redis', redis.url]);
    expect(result.killed).toBe(false);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'pixhook: the durable queue (listen --mode durable, worker) needs the optional package bullmq: npm install bullmq\n',
    );
  });

  it('without any optional package, the commands that need none still run', async () => {
    const result = await run(bare, ['postgres', 'schema']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/create table/i);
  });
});
