import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli-process.js';

// Every command that verifies or signs, started as its own process with no usable secret: one line that
// names PIXHOOK_SECRET, exit 2 (a usage error), nothing on stdout, no stack trace.
const commands = [
  ['listen', '--port', '0'],
  ['send', 'transaction_paid', '--url', 'http://127.0.0.1:9/webhooks/pix'],
  ['verify', '--signature', 'sha256=00'],
];
const environments: [string, string | undefined][] = [
  ['unset', undefined],
  ['empty', ''],
  ['blank', '  \t'],
];

describe('a missing secret', () => {
  describe.each(commands)('pixhook %s', (...args) => {
    it.each(environments)('PIXHOOK_SECRET %s: one line naming it, exit 2', async (_case, value) => {
      const run = await runCli(args, { env: { PIXHOOK_SECRET: value }, input: '{}', killAfterMs: 15_000 });
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      const lines = run.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^pixhook: a webhook secret .*PIXHOOK_SECRET.* \\(pixhook ${args[0]} --help\\)$`));
      expect(run.stderr).not.toMatch(/^\s+at /m);
    });
  });

  it('a blank --secret names the flag, not the variable', async () => {
    const run = await runCli(['verify', '--signature', 'sha256=00', '--secret', ' '], { env: { PIXHOOK_SECRET: 'set' }, input: '{}' });
    expect([run.code, run.stderr]).toEqual([
      2,
      'pixhook: a webhook secret must not be empty: `--secret` was given a blank value (pixhook verify --help)\n',
    ]);
  });
});
