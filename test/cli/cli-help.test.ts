import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-process.js';

// Issue 24: a CLI that helps. Every case is a real `pixhook` process, as a user runs it.
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const noSecret = { PIXHOOK_SECRET: undefined };
const internals = /ERR_PARSE_ARGS|TypeError|To specify a positional|\n\s+at /;

const commandPaths = [
  'listen',
  'send',
  'verify',
  'emulator',
  'worker',
  'worker dead-letters',
  'worker replay',
  'worker quarantine',
  'worker quarantine list',
  'worker quarantine show',
  'worker quarantine replay',
  'reconcile',
  'webhooks',
  'webhooks list',
  'webhooks register',
  'webhooks delete',
  'postgres',
  'postgres schema',
  'book',
  'book show',
  'book held',
  'book release',
  'book dismiss',
  'dev',
  'console',
  'replay',
  'trigger',
  'resend',
];

describe('pixhook --version', () => {
  it.each(['--version', '-v'])('%s prints the package version, exit 0', async (flag) => {
    const run = await runCli([flag]);
    expect([run.code, run.stdout, run.stderr]).toEqual([0, `${version}\n`, '']);
  });
});

describe('pixhook <command> --help: exit 0, on stdout, one format', () => {
  it('the overview lists every command, one line each', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    const listed = run.stdout.split('\n').flatMap((line) => /^ {2}([a-z]+) {2,}\S/.exec(line)?.[1] ?? []);
    expect(listed.sort()).toEqual([...new Set(commandPaths.map((p) => p.split(' ')[0]))].sort());
  });

  it.each(commandPaths)('pixhook %s --help', async (path) => {
    const run = await runCli([...path.split(' '), '--help'], { env: noSecret });
    expect([run.code, run.stderr]).toEqual([0, '']);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^usage: pixhook ${path}( |$)`));
    const start = lines.indexOf('flags:') + 1;
    const end = lines.indexOf('', start);
    const flags = lines.slice(start, end === -1 ? undefined : end);
    expect(flags.at(-1)).toMatch(/^ {2}-h, --help {2,}prints this help$/);
    // One line per flag: the flag, its value, two spaces or more, then its meaning.
    for (const line of flags) expect(line).toMatch(/^ {2}(-h, )?--[a-z-]+( <[^>]+>)? {2,}\S/);
    for (const line of flags.filter((l) => / \(default /.test(l))) expect(line).toMatch(/\(default [^)]+\)$/);
  });

  it('-h is --help, wherever it is on the line', async () => {
    const long = await runCli(['worker', 'quarantine', 'replay', '--help']);
    const short = await runCli(['worker', 'quarantine', 'replay', '--all', '-h']);
    expect(short.code).toBe(0);
    expect(short.stdout).toBe(long.stdout);
  });

  it('amount flags say cents', async () => {
    const run = await runCli(['send', '--help']);
    expect(run.stdout).toMatch(/^ {2}--amount <cents> +the amount in cents, an integer ≥ 0: 1990 is R\$ 19,90/m);
  });

  it('bounds and defaults are on the flag lines', async () => {
    const run = await runCli(['listen', '--help']);
    expect(run.stdout).toMatch(/^ {2}--port <n> +.*0–65535.*\(default 4000\)$/m);
    expect(run.stdout).toMatch(/^ {2}--attempts <n> +attempts in total, 1–100, --mode background only \(default 3\)$/m);
    expect(run.stdout).toMatch(/^ {2}PIXHOOK_SECRET +/m);
  });
});

// Every usage error: one line on stderr ending with where the help is, exit 2, nothing on stdout.
const usageErrors: [string[], string][] = [
  [['lisen'], "pixhook: unknown command 'lisen' — did you mean 'listen'? (pixhook --help lists them)"],
  [['frobnicate'], "pixhook: unknown command 'frobnicate' (pixhook --help lists them)"],
  [['--verison'], "pixhook: unknown flag '--verison' — did you mean '--version'? (pixhook --help lists them)"],
  [['listen', '--prot', '1'], "pixhook: unknown flag '--prot' — did you mean '--port'? (pixhook listen --help)"],
  [['send', '--wat'], "pixhook: unknown flag '--wat' (pixhook send --help)"],
  [['listen', '--port'], 'pixhook: `--port` needs a value (pixhook listen --help)'],
  [['listen', 'extra', '--secret', 's'], "pixhook: unexpected argument 'extra' (pixhook listen --help)"],
  [['webhooks', 'lsit'], "pixhook: unknown subcommand 'lsit' — did you mean 'list'? (pixhook webhooks --help)"],
  [['worker', 'dead-leters'], "pixhook: unknown subcommand 'dead-leters' — did you mean 'dead-letters'? (pixhook worker --help)"],
  [['worker', 'quarantine', 'lst'], "pixhook: unknown subcommand 'lst' — did you mean 'list'? (pixhook worker quarantine --help)"],
  [['worker', 'replay', '--kye', 'k'], "pixhook: unknown flag '--kye' — did you mean '--key'? (pixhook worker replay --help)"],
  [['postgres', 'schema', '--tabel', 'x'], "pixhook: unknown flag '--tabel' — did you mean '--table'? (pixhook postgres schema --help)"],
  [['postgres'], 'pixhook: postgres needs a subcommand: schema (pixhook postgres --help)'],
  [
    ['send', 'transaction_paid', '--url', 'http://127.0.0.1:9/', '--secret', 's', '--amount', '19.90'],
    'pixhook: `--amount` is in cents: an integer, e.g. 1990 for R$ 19,90 (got "19.90") (pixhook send --help)',
  ],
  [['listen', '--port', '0'], 'pixhook: a webhook secret is required: set PIXHOOK_SECRET or pass --secret <s> (pixhook listen --help)'],
  [
    ['send', 'transaction_paid', '--url', 'http://127.0.0.1:9/'],
    'pixhook: a webhook secret is required: set PIXHOOK_SECRET or pass --secret <s> (pixhook send --help)',
  ],
  [
    ['verify', '--signature', 'sha256=00'],
    'pixhook: a webhook secret is required: set PIXHOOK_SECRET or pass --secret <s> (pixhook verify --help)',
  ],
];

describe('usage errors: one line, exit 2, no parser internals', () => {
  it.each(usageErrors)('%j', async (args, line) => {
    const run = await runCli(args, { env: noSecret, input: '' });
    expect([run.code, run.stderr, run.stdout]).toEqual([2, `${line}\n`, '']);
    expect(run.stderr).not.toMatch(internals);
  });
});

describe('send to a port where nothing listens', () => {
  it('fails fast (one quick retry, not 15 s of backoff) with one line naming the URL, password masked', async () => {
    const port = await closedPort();
    const run = await runCli(['send', 'transaction_paid', '--url', `http://merchant:hunter2@127.0.0.1:${port}/pix`, '--secret', 's']);
    expect(run.code).toBe(1);
    expect(run.ms).toBeLessThan(5_000);
    expect(run.stderr).toBe(
      `pixhook: not delivered: connection refused (tried twice): is the receiver running at http://merchant:***@127.0.0.1:${port}/pix?\n`,
    );
    expect(run.stdout.split('\n').filter((l) => l.startsWith('attempt '))).toHaveLength(1);
    expect(run.stdout + run.stderr).not.toContain('hunter2');
  });

  it('a port fetch never opens (9) is said at once, with the same hint', async () => {
    const run = await runCli(['send', 'transaction_paid', '--url', 'http://127.0.0.1:9/', '--secret', 's']);
    expect(run.code).toBe(1);
    expect(run.ms).toBeLessThan(5_000);
    expect(run.stderr).toMatch(/^pixhook: not delivered: .*is the receiver running at http:\/\/127\.0\.0\.1:9\/\? [^\n]*\n$/);
  });
});

/** A port that was just free: connecting to it is refused. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
