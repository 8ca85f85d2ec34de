import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RemoteApp } from '../contract/run-contract-suite.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));

/**
 * pixhook as a user gets it: `npm pack` of the built package, unpacked into node_modules/pixhook of a
 * scratch app inside the repo (so its dependencies resolve from the repo's node_modules), with the
 * fixtures beside it. Returns the app's directory and a cleanup.
 */
export function packedApp(): { dir: string; dispose(): void } {
  if (!existsSync(join(repo, 'dist/src/index.js'))) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  const dir = mkdtempSync(join(repo, 'test/runtimes/.app-'));
  const packed = execFileSync('npm', ['pack', '--silent', '--ignore-scripts', '--pack-destination', dir], { cwd: repo, encoding: 'utf8' })
    .trim()
    .split('\n')
    .at(-1)!;
  const target = join(dir, 'node_modules', 'pixhook');
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', join(dir, packed), '-C', target, '--strip-components=1']);
  for (const file of readdirSync(fixtures)) cpSync(join(fixtures, file), join(dir, file));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true, dependencies: { pixhook: '*' } }));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts a runtime process and waits for its `{"listening":port}` line (or, with `port`, for the port to answer). */
export async function serve(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; port?: number },
): Promise<RemoteApp & { runtime: string }> {
  const child: ChildProcess = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const deadline = Date.now() + 60_000;
  let port = options.port;
  let runtime = command;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${command} exited ${child.exitCode}: ${out}${err}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${command} did not start: ${out}${err}`);
    }
    const line = out.split('\n').find((l) => l.startsWith('{"listening"'));
    if (line) {
      const parsed = JSON.parse(line) as { listening: number; runtime: string };
      port = parsed.listening;
      runtime = parsed.runtime;
      break;
    }
    if (options.port !== undefined && (await answers(options.port))) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    runtime,
    close: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

async function answers(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/_control/handled`);
    return true;
  } catch {
    return false;
  }
}

/** The worker bundled as Cloudflare bundles it (esbuild, worker conditions), and a capnp config for workerd. */
export async function workerdConfig(dir: string, port: number): Promise<string> {
  const { build } = await import('esbuild');
  await build({
    entryPoints: [join(dir, 'worker.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['worker', 'browser'],
    outfile: join(dir, 'worker.bundle.js'),
    logLevel: 'silent',
  });
  const config = `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = ( services = [ (name = "main", worker = .w) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ] );
const w :Workerd.Worker = ( modules = [ (name = "worker", esModule = embed "worker.bundle.js") ],
  compatibilityDate = "2026-10-01" );
`;
  writeFileSync(join(dir, 'config.capnp'), config);
  return join(dir, 'config.capnp');
}
