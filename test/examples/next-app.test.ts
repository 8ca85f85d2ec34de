import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sendHttp } from '../contract/contract-target.js';
import { variantAPaid } from '../contract/fixtures.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import { freePort } from '../helpers/free-port.js';
import { deliverScenario, exampleSecret, repoRoot, requireBuiltPackage, startExample } from './example-process.js';

const run = promisify(execFile);
const app = `${repoRoot}examples/next-app`;
const next = `${app}/node_modules/next/dist/bin/next`;
const { PIXHOOK_SECRET: _parentSecret, ...parentEnv } = process.env;
const env = { ...parentEnv, PIXHOOK_SECRET: exampleSecret, NEXT_TELEMETRY_DISABLED: '1' };

async function installNextApp(): Promise<void> {
  const options = { cwd: app, env, timeout: 240_000 };
  try {
    await run('npm', ['ci', '--no-audit', '--no-fund'], options);
  } catch {
    // next is pinned to a release whose every @next/swc build the registry has, so npm ci normally
    // passes; it still refuses when the lock's snapshot of the linked root package.json has drifted.
    // Install then honours the locked versions and writes nothing back; say so in the log.
    console.warn('examples/next-app: npm ci refused the lock; falling back to npm install --no-save');
    await run('npm', ['install', '--no-save', '--no-audit', '--no-fund'], options);
  }
}

// The real thing: `npm ci` (first run only), `next build`, `next start`, real HTTP. Its dependencies stay
// in examples/next-app, so the library itself never depends on next.
describe('examples/next-app (Next.js 16, built and started for real)', () => {
  it(
    'handles deliveries on the App Router (background + after), the edge runtime and Pages Router routes',
    { timeout: 300_000 },
    async () => {
      await requireBuiltPackage();
      if (!existsSync(next)) await installNextApp();
      const startedAt = Date.now();
      // Built without the secret: the routes create their receivers on the first request.
      const { PIXHOOK_SECRET: _absentAtBuild, ...buildEnv } = env;
      await run(process.execPath, [next, 'build'], { cwd: app, env: buildEnv, timeout: 180_000 });
      console.info(`next build took ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);

      const port = await freePort();
      const base = `http://127.0.0.1:${port}/api/webhooks`;
      const example = await startExample({
        command: process.execPath,
        args: [next, 'start', '-p', String(port), '-H', '127.0.0.1'],
        cwd: app,
        env: { PIXHOOK_SECRET: exampleSecret },
        waitFor: `${base}/pix`,
        timeoutMs: 30_000,
      });
      try {
        await deliverScenario(`${base}/pix`, example, 'app');
        // Every method is exported: a GET gets pixhook's JSON 405 with Allow: POST, not Next's empty one.
        const get = await fetch(`${base}/pix`);
        expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
        expect(await get.json()).toMatchObject({ error: 'method_not_allowed' });
        await deliverScenario(`${base}/pix-pages`, example, 'pages');
        // The edge runtime route (pixhook/web, Web Crypto): signed events, a retry and a forgery.
        await deliverScenario(`${base}/pix-edge`, example, 'edge');

        // Every route keeps the core's headers on every answer: Next's Pages response once read the
        // adapter's flat header list as pairs (`c: o`, `a: l`) and dropped Allow, Content-Type, Cache-Control.
        const forged = bytesOf(variantAPaid);
        for (const route of ['pix', 'pix-pages', 'pix-edge']) {
          const answers = [
            [405, await sendHttp(`${base}/${route}`, { method: 'GET', headers: {} })],
            [
              401,
              await sendHttp(`${base}/${route}`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'x-signature': 'sha256=00' },
                body: forged,
              }),
            ],
          ] as const;
          for (const [status, answer] of answers) {
            const label = `${route} ${status}: ${JSON.stringify(answer.headers)}`;
            expect(answer.status, label).toBe(status);
            expect(answer.headers['content-type'], label).toMatch(/^application\/json/);
            expect(answer.headers['cache-control'], label).toBe('no-store');
            if (status === 405) expect(answer.headers['allow'], label).toBe('POST');
            expect(
              Object.keys(answer.headers).filter((name) => name.length === 1),
              label,
            ).toEqual([]);
          }
        }

        // A Pages route without `bodyParser: false`: Next's parser ran, and the answer says what to write.
        const body = bytesOf(variantAPaid);
        const forgot = await sendHttp(`${base}/forgot-config`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-signature': signBytes(body, exampleSecret) },
          body,
        });
        expect(forgot.status).toBe(500);
        expect(JSON.parse(forgot.body)).toMatchObject({
          error: 'body_already_parsed',
          message: expect.stringContaining('export const config = { api: { bodyParser: false } }'),
        });
      } finally {
        await example.stop();
      }
    },
  );
});
