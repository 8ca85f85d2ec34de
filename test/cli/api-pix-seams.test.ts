import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createApiPixClient } from '../../src/api-pix/index.js';
import { envLines, jsonLines, runCli, startCli } from '../helpers/cli-process.js';

// Issue 37's API Pix seams of the CLI: `pixhook dev --profile api-pix` printed neither the client id nor the
// secret (the docs run `pixhook reconcile --profile api-pix` against it); the api-pix emulator printed no request
// lines though its help said so; the api-pix flags hid inside `--profile`'s description; `reconcile --help`
// marked the gateway's variables "(required)" under `--profile api-pix` too.
const handlers = fileURLToPath(new URL('../api-pix-client/fixtures/pix-handlers.js', import.meta.url));
const apiPixVariables = (stdout: string) =>
  Object.fromEntries(Object.entries(envLines(stdout)).filter(([name]) => name.startsWith('PIXHOOK_API_PIX_')));

describe('pixhook dev --profile api-pix', () => {
  it('prints the PSP connection as PIXHOOK_API_PIX_* lines, and pixhook reconcile --profile api-pix runs with them', async () => {
    const dev = startCli(['dev', '--profile', 'api-pix', '--port', '0']);
    try {
      const url = (await dev.waitFor(/^(http:\/\/127\.0\.0\.1:\d+\/)$/m, 30_000))[1]!;
      const env = apiPixVariables(dev.stdout());
      expect(Object.keys(env)).toEqual(
        expect.arrayContaining(['PIXHOOK_API_PIX_URL', 'PIXHOOK_API_PIX_CLIENT_ID', 'PIXHOOK_API_PIX_CLIENT_SECRET', 'PIXHOOK_API_PIX_CA']),
      );
      expect(env['PIXHOOK_API_PIX_CLIENT_SECRET']).not.toBe('(as given)');
      // A Pix paid in the sandbox: the reconciler, with only what dev printed, lists it (duplicate: the webhook handled it first).
      const played = await runCli(['trigger', 'api-pix-payment', '--dev', url]);
      expect(played.code).toBe(0);
      const from = new Date(Date.now() - 60_000).toISOString();
      const run = await runCli(['reconcile', '--profile', 'api-pix', '--handlers', handlers, '--once', '--from', from, '--settle', '0s'], {
        env,
        killAfterMs: 30_000,
      });
      expect(run.code).toBe(0);
      expect(jsonLines(run.stdout).find((l) => l['type'] === 'summary')).toMatchObject({ listed: 1, failed: 0 });
    } finally {
      await dev.stop();
    }
  }, 60_000);
});

describe('pixhook emulator --profile api-pix', () => {
  it('prints one line per request on stderr (none with --quiet)', async () => {
    for (const quiet of [false, true]) {
      const emulator = startCli(['emulator', '--profile', 'api-pix', '--port', '0', ...(quiet ? ['--quiet'] : [])]);
      try {
        await emulator.waitFor(/PIXHOOK_API_PIX_CLIENT_KEY=.*\n/);
        const env = envLines(emulator.stdout());
        const client = createApiPixClient({
          baseUrl: env['PIXHOOK_API_PIX_URL']!,
          clientId: env['PIXHOOK_API_PIX_CLIENT_ID']!,
          clientSecret: env['PIXHOOK_API_PIX_CLIENT_SECRET']!,
          cert: env['PIXHOOK_API_PIX_CLIENT_CERT']!,
          key: env['PIXHOOK_API_PIX_CLIENT_KEY']!,
          ca: env['PIXHOOK_API_PIX_CA']!,
          pixKey: env['PIXHOOK_API_PIX_KEY']!,
        });
        const txid = `seamtxid${quiet ? 'q' : 'v'}abcdefghijklmnopqrstuvw`;
        await client.createCharge({ txid, amountInCents: 1990 });
        client.close();
        if (quiet) {
          expect(emulator.stderr()).not.toMatch(/pixhook emulator: (POST|PUT)/);
        } else {
          await expect.poll(() => emulator.stderr()).toContain('pixhook emulator: POST "/oauth/token" → 200');
          await expect.poll(() => emulator.stderr()).toContain(`pixhook emulator: PUT "/cob/${txid}" → 201`);
        }
      } finally {
        await emulator.stop();
      }
    }
  });
});

describe('--help: the api-pix flags as flags, and which variables each profile needs', () => {
  const flagLines = (help: string) => help.split('\n').filter((line) => /^ {2}--/.test(line));

  it('emulator --help lists the api-pix flags', async () => {
    const help = (await runCli(['emulator', '--help'])).stdout;
    for (const flag of ['--client-id', '--client-secret', '--pix-key', '--certificates-dir', '--group-window-ms', '--disable-after'])
      expect(flagLines(help).some((line) => line.startsWith(`  ${flag} `) && line.includes('api-pix:'))).toBe(true);
  });

  it('reconcile --help lists the api-pix flags, and says which profile requires each variable', async () => {
    const help = (await runCli(['reconcile', '--help'])).stdout;
    for (const flag of ['--from', '--window', '--overlap', '--settle', '--page-size'])
      expect(flagLines(help).some((line) => line.startsWith(`  ${flag} `) && line.includes('api-pix:'))).toBe(true);
    const environment = help.slice(help.indexOf('environment:'));
    expect(environment).toMatch(/PIXHOOK_API_KEY +the gateway API key \(required with --profile gateway\)/);
    expect(environment).toMatch(/PIXHOOK_API_PIX_CLIENT_ID +.*\(required with --profile api-pix\)/);
    expect(environment).not.toMatch(/\(required\)/);
  });
});
