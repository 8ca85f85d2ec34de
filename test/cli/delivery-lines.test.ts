import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node/index.js';
import { createReceiver } from '../../src/index.js';
import { runCli, startCli } from '../helpers/cli-process.js';

// Issue 37 §4: `pixhook dev` and `pixhook listen` print one `-->` line per delivery and one `<--` line with
// the answer; a 401 gets the hint `send` gives. And "dev --forward-to without --secret signs with a secret the
// app does not know: every delivery is answered 401, and the terminal prints nothing" — now it says so.
const consoleUrl = /^(http:\/\/127\.0\.0\.1:\d+\/)$/m;
const hint = /refused the delivery \(401\): check the secret — --secret \(or PIXHOOK_SECRET\) must be the receiver's webhook secret/;

const send = (url: string, secret: string, extra: string[] = []) =>
  runCli(['send', 'transaction_paid', '--url', url, '--secret', secret, '--backoff-ms', '0', '--amount', '1990', ...extra], {
    env: { PIXHOOK_SECRET: undefined },
  });

describe('pixhook dev: a line per delivery and its answer', () => {
  it('the built-in receiver: --> transaction_paid <id> 1990, then <-- 200 handled', async () => {
    const dev = startCli(['dev', '--port', '0'], { PIXHOOK_SECRET: undefined });
    try {
      const url = (await dev.waitFor(consoleUrl, 20_000))[1]!;
      const secret = /^PIXHOOK_SECRET=(whsec_\S+)$/m.exec(dev.stdout())![1]!;
      expect((await send(`${url}webhooks/pix`, secret, ['--id', 'txn_lines'])).code).toBe(0);
      await expect.poll(() => dev.stdout()).toMatch(/^--> transaction_paid txn_lines 1990\n<-- 200 handled [\d.]+ ms$/m);
      // The same event again: its answer says duplicate.
      expect((await send(`${url}webhooks/pix`, secret, ['--id', 'txn_lines', '--seed', '1'])).code).toBe(0);
      await expect.poll(() => dev.stdout().match(/^<-- 200 duplicate/gm)?.length).toBe(1);
    } finally {
      await dev.stop();
    }
  });

  describe('--forward-to an app with its own secret, and no --secret', () => {
    let app: Server;
    let appUrl: string;
    beforeAll(async () => {
      app = createServer(createNodeHandler(createReceiver({ secret: 'whsec_the_apps_own' })));
      await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
      appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/webhooks/pix`;
    });
    afterAll(async () => {
      await new Promise((resolve) => app?.close(resolve));
    });

    it('says at start that the app must verify with the printed secret, then shows each 401 and the hint once', async () => {
      const dev = startCli(['dev', '--port', '0', '--forward-to', appUrl], { PIXHOOK_SECRET: undefined });
      try {
        const url = (await dev.waitFor(consoleUrl, 20_000))[1]!;
        expect(dev.stdout()).toMatch(/^PIXHOOK_SECRET=whsec_\S+$/m);
        expect(dev.stdout()).toMatch(
          /your app must verify with this secret: start it with PIXHOOK_SECRET set to it, or restart pixhook dev with --secret/,
        );
        const run = await runCli(['trigger', 'payment', '--dev', url]);
        expect(run.stdout).toMatch(/--> transaction_paid txn_\w+ 1990\n<-- 401 signature_mismatch/);
        expect(run.stderr).toMatch(hint);
        expect(run.stderr).toContain(appUrl);
        expect(run.code).toBe(1);
        // The dev terminal, which printed nothing before: the deliveries, the app's 401 and the hint (once, though the emulator retries).
        await expect
          .poll(() => dev.stdout())
          .toMatch(/--> transaction_created txn_\w+ 1990\n<-- 401 signature_mismatch [\d.]+ ms\npixhook: the receiver at /);
        expect(dev.stdout().match(new RegExp(hint.source, 'g'))).toHaveLength(1);
      } finally {
        await dev.stop();
      }
    });
  });
});

describe('pixhook listen: a line per delivery and its answer, on stderr', () => {
  it('200 handled, then 401 signature_mismatch with the hint `send` gives', async () => {
    const listen = startCli(['listen', '--port', '0', '--secret', 'whsec_listen_lines'], { PIXHOOK_SECRET: undefined });
    try {
      const url = (await listen.waitFor(/listening on (http:\/\/\S+)/))[1]!;
      expect((await send(url, 'whsec_listen_lines', ['--id', 'txn_listen'])).code).toBe(0);
      await expect.poll(() => listen.stderr()).toMatch(/^--> transaction_paid txn_listen 1990\n<-- 200 handled [\d.]+ ms$/m);
      // stdout stays one JSON line per handled event.
      expect(
        listen
          .stdout()
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as { id: string }),
      ).toMatchObject([{ id: 'txn_listen' }]);
      expect((await send(url, 'whsec_wrong', ['--attempts', '1'])).code).toBe(1);
      await expect.poll(() => listen.stderr()).toMatch(/^--> a delivery pixhook could not read\n<-- 401 signature_mismatch [\d.]+ ms\n/m);
      expect(listen.stderr()).toMatch(hint);
    } finally {
      await listen.stop();
    }
  });
});
