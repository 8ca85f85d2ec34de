import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBuiltPackage, startExample } from '../examples/example-process.js';
import { freePort } from '../helpers/free-port.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { markedBlock, repoRoot } from './doc-files.js';

// Issue 31: no guide said how to create the app; in an `npm init -y` app (`"type": "commonjs"`) the guides'
// `server.js` did not load, and in a typeless one Node warned MODULE_TYPELESS_PACKAGE_JSON. Each guide's app is
// made here by the guide's own lines in a shell, its file saved under the name the guide gives, started by the
// guide's command, and sent a signed event by the guide's `npx pixhook send` (pixhook's own bin, installed).
// One substitution: `npm install pixhook` installs a tarball packed from this repository (pixhook is not on
// the registry yet, as the guides say); the framework comes from the npm cache or the registry.
const run = promisify(execFile);
const tempDir = useTempDirs('pixhook-guides-');
const { PIXHOOK_SECRET: _parentSecret, NODE_OPTIONS: _nodeOptions, ...parentEnv } = process.env;
const env: Record<string, string> = {
  ...(parentEnv as Record<string, string>),
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  npm_config_loglevel: 'error',
};

const guides = [
  { guide: 'docs/guides/express.md', example: 'examples/express/server.js' },
  { guide: 'docs/guides/fastify.md', example: 'examples/fastify/server.js' },
  { guide: 'docs/guides/node-http.md', example: 'examples/node-http/server.js' },
  { guide: 'docs/guides/web.md', example: 'examples/hono/server.js' },
];

let tarball = '';

beforeAll(async () => {
  await requireBuiltPackage();
  const dir = tempDir();
  const packed = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir, '--silent'], { cwd: repoRoot, env });
  tarball = join(dir, packed.stdout.trim().split('\n').at(-1)!);
}, 120_000);

/** The guide's create lines, with `pixhook` in `npm install` taken from the tarball. */
function createScript(text: string): string {
  return markedBlock(text, 'guide: create')
    .split('\n')
    .map((line) => (line.startsWith('npm install ') ? line.replace(/(?<=\s)pixhook(?=\s|$)/, tarball) : line))
    .join('\n');
}

describe.each(guides)('$guide, verbatim in an app made by its own lines', ({ guide, example }) => {
  const text = readFileSync(join(repoRoot, guide), 'utf8');

  it('says how to make the app as an ES module package', () => {
    expect(markedBlock(text, 'guide: create')).toMatch(/npm init -y && npm pkg set type=module/);
    expect(markedBlock(text, 'guide: create')).toMatch(/^npm install pixhook\b/m);
    expect(text).toMatch(/Save this as\s+`server\.js`/);
  });

  it('its server starts with no module warning, and its send gets 200 and runs the handler', async () => {
    const parent = tempDir();
    await run('bash', ['-e', '-c', createScript(text)], { cwd: parent, env, timeout: 240_000 });
    const app = join(parent, 'pix-app');
    expect((JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { type?: string }).type).toBe('module');
    writeFileSync(join(app, 'server.js'), markedBlock(text, `example: ${example}`));
    const port = await freePort();
    const server = await startExample({
      command: 'bash',
      args: ['-c', markedBlock(text, 'guide: run').trim()],
      cwd: app,
      env: { ...env, PORT: String(port) },
      waitFor: `http://127.0.0.1:${port}/webhooks/pix`,
      timeoutMs: 30_000,
    });
    try {
      const send = markedBlock(text, 'guide: send').trim().replace('127.0.0.1:3000', `127.0.0.1:${port}`);
      const sent = await run('bash', ['-e', '-c', send], { cwd: app, env, timeout: 60_000 });
      expect(sent.stdout).toMatch(/^attempt 1\/5 {2}200 /m);
      await expect.poll(() => server.stdout().some((line) => /^paid \S+ \d+ a$/.test(line))).toBe(true);
      expect(server.stderr()).not.toMatch(/MODULE_TYPELESS_PACKAGE_JSON|Warning|Error/);
    } finally {
      await server.stop();
    }
  }, 300_000);
});

describe('the README: its app line, and the handlers.js beside `pixhook dev`, verbatim', () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

  it('pixhook dev loads handlers.js with no module warning, prints its secret, and a send with it runs the handler', async () => {
    const parent = tempDir();
    const create = markedBlock(readme, 'quick-start: create');
    expect(create).toMatch(/npm init -y && npm pkg set type=module/);
    // The README installs the tarball its install section packed beside the app (readme-install.test.ts runs both).
    const tarballName = /pixhook-\d+\.\d+\.\d+\.tgz/.exec(create)![0];
    mkdirSync(join(parent, 'pixhook'));
    copyFileSync(tarball, join(parent, 'pixhook', tarballName));
    await run('bash', ['-e', '-c', create], { cwd: parent, env, timeout: 240_000 });
    const app = join(parent, 'pix-app');
    const handlers = markedBlock(readme, 'dev: handlers.js');
    expect(handlers.trim().split('\n').length).toBeLessThanOrEqual(6);
    writeFileSync(join(app, 'handlers.js'), handlers);
    const command = markedBlock(readme, 'dev: commands').trim();
    expect(command).toBe('npx pixhook dev --handlers ./handlers.js');
    const port = await freePort();
    // The one change: a free port instead of the default 4000.
    const dev = await startExample({
      command: 'bash',
      args: ['-c', `${command} --port ${port}`],
      cwd: app,
      env,
      waitFor: `http://127.0.0.1:${port}/webhooks/pix`,
      timeoutMs: 30_000,
    });
    try {
      await expect.poll(() => dev.stdout().find((line) => line.startsWith('PIXHOOK_SECRET='))).toBeDefined();
      const secret = dev
        .stdout()
        .find((line) => line.startsWith('PIXHOOK_SECRET='))!
        .slice('PIXHOOK_SECRET='.length);
      const sent = await run(
        'bash',
        ['-e', '-c', `npx pixhook send transaction_paid --url http://127.0.0.1:${port}/webhooks/pix --id txn_dev --amount 1990`],
        { cwd: app, env: { ...env, PIXHOOK_SECRET: secret }, timeout: 60_000 },
      );
      expect(sent.stdout).toMatch(/^attempt 1\/5 {2}200/m);
      await expect.poll(() => dev.stdout()).toContain('paid txn_dev 1990 cents');
      expect(dev.stdout()).toContain('event transaction_paid');
      expect(dev.stderr()).not.toMatch(/MODULE_TYPELESS_PACKAGE_JSON|Warning/);
    } finally {
      await dev.stop();
    }
  }, 300_000);
});

describe('docs/guides/next.md, verbatim in an app made by its own lines', () => {
  const text = readFileSync(join(repoRoot, 'docs/guides/next.md'), 'utf8');

  it('next build and next start in an npm init -y app; the App route answers the guide’s send with 200', async () => {
    const parent = tempDir();
    await run('bash', ['-e', '-c', createScript(text)], { cwd: parent, env, timeout: 400_000 });
    const app = join(parent, 'pix-app');
    writeFileSync(
      join(app, 'app/api/webhooks/pix/route.js'),
      markedBlock(text, 'example: examples/next-app/app/api/webhooks/pix/route.js'),
    );
    const port = await freePort();
    const start = markedBlock(text, 'guide: run').trim().replace('-p 3000', `-p ${port}`);
    const server = await startExample({
      command: 'bash',
      args: ['-c', start],
      cwd: app,
      env: { ...env, NEXT_TELEMETRY_DISABLED: '1' },
      waitFor: `http://127.0.0.1:${port}/api/webhooks/pix`,
      timeoutMs: 400_000,
    });
    try {
      const send = markedBlock(text, 'guide: send').trim().replace('127.0.0.1:3000', `127.0.0.1:${port}`);
      const sent = await run('bash', ['-e', '-c', send], { cwd: app, env, timeout: 60_000 });
      expect(sent.stdout).toMatch(/^attempt 1\/5 {2}200/m);
      await expect.poll(() => server.stdout().some((line) => /^paid \S+ \d+ a app$/.test(line)), { timeout: 10_000 }).toBe(true);
      expect(server.stderr()).not.toMatch(/MODULE_TYPELESS_PACKAGE_JSON|module format/);
    } finally {
      await server.stop();
    }
  }, 900_000);
});
