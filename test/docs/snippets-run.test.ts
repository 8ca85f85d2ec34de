import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuiltPackage } from '../examples/example-process.js';
import { freePort } from '../helpers/free-port.js';
import { startPostgresServer, type PostgresServer } from '../helpers/postgres-server.js';
import { startRedisServer, type RedisServer } from '../helpers/redis-server.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { codeBlocks, docFiles, linkPackage, repoRoot, type CodeBlock } from './doc-files.js';
import { partialReasonProblem, snippetDirectives, type SnippetDirectives } from './snippet-directives.js';

// Every ```js block of README.md and docs/ runs under plain Node, as a reader would save and run it, in a project
// whose node_modules resolves 'pixhook' and 'pixhook/*' to this repository's built package (docs-compile.test.ts
// type-checks the ```ts blocks against the same package). A block's `<!-- snippet: … -->` comment says what it
// needs (snippet-directives.ts, CONTRIBUTING.md): a Redis or PostgreSQL started here, a port, and whether it runs
// until SIGTERM, which it must then obey. A failure names the file and the block's first line.

const isJs = (block: CodeBlock) => block.lang === 'js' || block.lang === 'javascript';
const texts = new Map(docFiles().map((file) => [file, readFileSync(`${repoRoot}${file}`, 'utf8')]));
const blocks = [...texts].flatMap(([file, text]) => codeBlocks(file, text)).filter(isJs);
const directivesOf = (block: CodeBlock) => snippetDirectives(block, texts.get(block.file)!);
/** At most this many blocks are `partial` (not run). */
const maxPartial = 3;

const tempDir = useTempDirs('pixhook-snippets-');
let project = '';
let redis: RedisServer | undefined;
let postgres: PostgresServer | undefined;
const needs = (names: string[]) =>
  blocks.some((b) => names.some((name) => name in directivesOf(b).env && directivesOf(b).env[name] === undefined));

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  /** Set when the run did not end as it should: the reason, for the failure message. */
  problem?: string;
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** Runs one snippet file in its folder; a long-running one gets SIGTERM once ready and must exit within 10 s. */
async function runSnippet(dir: string, directives: SnippetDirectives): Promise<Outcome> {
  const port = await freePort();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    NODE_ENV: 'production',
    PIXHOOK_SECRET: 'whsec_snippet_test',
    PORT: String(port),
  };
  for (const [name, value] of Object.entries(directives.env)) {
    if (value !== undefined) env[name] = value;
    else if (/REDIS_URL$/.test(name)) env[name] = redis!.url;
    else if (/POSTGRES_URL$|DATABASE_URL$/.test(name)) env[name] = postgres!.url;
  }
  const child = spawn(process.execPath, [directives.file], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const within = <T>(promise: Promise<T>, ms: number) =>
    Promise.race([promise, new Promise<undefined>((resolve) => void setTimeout(resolve, ms))]);
  try {
    if (!directives.untilSigterm) {
      const ended = await within(exited, 30_000);
      if (!ended) return { code: null, signal: null, output, problem: 'still running after 30 s (mark it `runs until SIGTERM`?)' };
      return { ...ended, output, problem: ended.code === 0 ? undefined : `exited with ${ended.code ?? ended.signal}` };
    }
    const readyBy = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        const ended = await exited;
        return { ...ended, output, problem: `exited with ${ended.code ?? ended.signal} before it was ready` };
      }
      const ready = directives.servesPort
        ? await portOpen(port)
        : directives.readyText !== undefined
          ? output.includes(directives.readyText)
          : Date.now() > readyBy - 28_000; // neither: ready once it ran 2 s without exiting
      if (ready) break;
      if (Date.now() > readyBy) return { code: null, signal: null, output, problem: 'not ready after 30 s' };
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill('SIGTERM');
    const ended = await within(exited, 10_000);
    if (!ended)
      return { code: null, signal: null, output, problem: 'still running 10 s after SIGTERM: its SIGTERM handler does not stop it' };
    const stopped = ended.signal === 'SIGTERM' || ended.code === 0;
    return { ...ended, output, problem: stopped ? undefined : `exited with ${ended.code ?? ended.signal} after SIGTERM` };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

let counter = 0;
/** Saves code as a snippet of its own (its own folder: `file handlers.js` blocks do not overwrite each other). */
function save(code: string, directives: SnippetDirectives): string {
  const dir = `${project}/snippet-${++counter}`;
  mkdirSync(dir);
  writeFileSync(`${dir}/${directives.file}`, `${code}\n`);
  return dir;
}

const failure = (block: CodeBlock, outcome: Outcome) =>
  `${block.file}:${block.line}: the \`\`\`js block ${outcome.problem}\n--- its output ---\n${outcome.output.slice(-3000)}`;

describe('every js snippet of the README and docs runs under Node', () => {
  beforeAll(async () => {
    await requireBuiltPackage();
    project = tempDir();
    linkPackage(project);
    writeFileSync(`${project}/package.json`, JSON.stringify({ name: 'snippets', private: true, type: 'module' }));
    [redis, postgres] = await Promise.all([
      needs(['REDIS_URL', 'PIXHOOK_REDIS_URL']) ? startRedisServer() : undefined,
      needs(['DATABASE_URL', 'PIXHOOK_POSTGRES_URL']) ? startPostgresServer() : undefined,
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([redis?.dispose(), postgres?.dispose()]);
  });

  it('finds the js blocks, and keeps the partial ones few, each with a reason naming the file that runs it', () => {
    expect(blocks.length).toBeGreaterThan(10);
    const partial = blocks.filter((b) => directivesOf(b).partial !== undefined);
    expect(partial.length).toBeLessThanOrEqual(maxPartial);
    const problems = partial.flatMap((b) => {
      const problem = partialReasonProblem(directivesOf(b).partial!);
      return problem ? [`${b.file}:${b.line}: partial block's reason ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it("gives every ioredis client a snippet makes an 'error' listener (without one ioredis prints each reconnect's error)", () => {
    const all = [...texts].flatMap(([file, text]) => codeBlocks(file, text)).filter((b) => ['js', 'ts'].includes(b.lang));
    const making = all.filter((b) => /new Redis(\.Cluster)?\(/.test(b.code));
    expect(making.length).toBeGreaterThanOrEqual(5);
    const without = making.filter((b) => !/\.on\('error'/.test(b.code)).map((b) => `${b.file}:${b.line}`);
    expect(without).toEqual([]);
  });

  it('never swallows an error a catch does not handle: a catch that picks errors by class rethrows the others', () => {
    // Issue 37: the API Pix client snippet's catch handled ApiPixBadRequestError and dropped ApiPixNotFoundError.
    const all = [...texts].flatMap(([file, text]) => codeBlocks(file, text)).filter((b) => ['js', 'ts'].includes(b.lang));
    const swallowing = all.flatMap((b) =>
      [...b.code.matchAll(/\bcatch \((\w+)\) \{\n([\s\S]*?)\n\}/g)]
        .filter(([, , body]) => body!.includes('instanceof') && !/\bthrow\b/.test(body!))
        .map(() => `${b.file}:${b.line}`),
    );
    expect(swallowing).toEqual([]);
  });

  it('says `npm install ioredis` before the first snippet of a file that imports it (an optional peer dependency)', () => {
    // Issue 37: the reconciler snippet needed ioredis and did not say so.
    const silent = [...texts].flatMap(([file, text]) => {
      const first = codeBlocks(file, text).find((b) => /from 'ioredis'/.test(b.code));
      if (first === undefined) return [];
      const before = text
        .split('\n')
        .slice(0, first.line - 1)
        .join('\n');
      return /npm install [^`]*\bioredis\b/.test(before) ? [] : [`${file}:${first.line}`];
    });
    expect(silent).toEqual([]);
  });

  it('reports a block that throws, and one whose SIGTERM handler does not stop it', async () => {
    const throws = { env: {}, file: 'snippet.mjs', untilSigterm: false, servesPort: false };
    const thrown = await runSnippet(save("throw new Error('boom')", throws), throws);
    expect(thrown.problem).toBe('exited with 1');
    expect(thrown.output).toContain('boom');
    const lingers = { env: {}, file: 'snippet.mjs', untilSigterm: true, servesPort: false, readyText: 'up' };
    // The durable snippet's old handler: it closes what it awaits, but a timer (like an open Redis client) keeps it alive.
    const code = "setInterval(() => {}, 1000); process.on('SIGTERM', async () => { await Promise.resolve(); }); console.log('up');";
    const lingered = await runSnippet(save(code, lingers), lingers);
    expect(lingered.problem).toContain('does not stop it');
  }, 60_000);

  for (const block of blocks) {
    const directives = directivesOf(block);
    if (directives.partial !== undefined) continue;
    it(`${block.file}:${block.line}`, async () => {
      const outcome = await runSnippet(save(block.code, directives), directives);
      if (outcome.problem) expect.fail(failure(block, outcome));
    }, 60_000);
  }
});
