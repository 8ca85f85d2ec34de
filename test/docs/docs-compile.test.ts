import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { requireBuiltPackage } from '../examples/example-process.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { codeBlocks, docFiles, linkPackage, repoRoot, type CodeBlock } from './doc-files.js';

// Every ```ts / ```typescript / ```js / ```javascript block of README.md and docs/ is type-checked under `strict`
// against the built package, as a user's project would import it ('pixhook', 'pixhook/redis', …). TS blocks are
// one tsc program, JS blocks another (checkJs).

/** Blocks marked ```ts nocheck (fragments on purpose). Keep this list short; each entry is `file:line`. */
const allowedFragments: string[] = [];

// What the checked projects declare beyond the packages, and why:
// - both: `Bun` and `Deno`, the globals of those runtimes, as their own types declare them (only the calls the web guide makes);
// - JS: `PIXHOOK_SECRET` as a string in process.env. The framework examples pass it straight to createReceiver and
//   run with it set; a missing one is refused at startup with a message naming it (test/examples). TS blocks get no
//   such help: they must narrow the variable themselves, as the README quick start does;
// - JS: `next/server`'s `after`, as Next 16 types it. Next is not a dependency of the package (examples/next-app
//   installs it on its own).
const runtimes = `declare global {
  const Bun: { serve(options: { port?: number; fetch: (request: Request) => Response | Promise<Response> }): unknown };
  const Deno: { serve(options: { port?: number }, handler: (request: Request) => Response | Promise<Response>): unknown };
}
export {};
`;
const jsOnly = `declare global {
  namespace NodeJS {
    interface ProcessEnv {
      readonly PIXHOOK_SECRET: string;
    }
  }
}
export {};
`;
// An ambient module declaration must live in a file that is not a module itself.
const nextServer = `declare module 'next/server' {
  export function after<T>(task: T | Promise<T> | (() => T | Promise<T>)): void;
}
`;
// Proves a block that stops compiling is caught: an option createReceiver does not have, and a wrong handler.
const brokenBlock = `import { createReceiver } from 'pixhook';
createReceiver({ secret: 'whsec_test', notAnOption: true });
createReceiver({ secret: 'whsec_test' }).on('transaction_paid', (event) => event.transfer.id);
`;

const checked = (block: CodeBlock) => ['ts', 'typescript', 'js', 'javascript'].includes(block.lang);
const isTs = (block: CodeBlock) => block.lang === 'ts' || block.lang === 'typescript';
const fileName = (block: CodeBlock) => `${block.file.replace(/[/.]/g, '_')}_L${block.line}.${isTs(block) ? 'ts' : 'js'}`;

const compilerOptions = {
  target: 'ES2023',
  lib: ['ES2023', 'DOM'],
  module: 'nodenext',
  moduleResolution: 'nodenext',
  types: ['node'],
  strict: true,
  noEmit: true,
  skipLibCheck: true,
  forceConsistentCasingInFileNames: true,
};

const run = promisify(execFile);
const tsc = `${repoRoot}node_modules/typescript/bin/tsc`;

/** Runs one tsc program; returns its diagnostics, one per line (empty when it compiles). */
async function typeCheck(dir: string, config: string): Promise<string[]> {
  try {
    await run(process.execPath, [tsc, '-p', config, '--pretty', 'false'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
    return [];
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    const lines: string[] = [];
    // An error's indented continuation lines (tsc's "Property … does not exist on type 'A'." under a union) stay with it.
    for (const line of `${stdout ?? ''}${stderr ?? ''}`.split('\n')) {
      if (line.trim() === '') continue;
      if (/^\s/.test(line) && lines.length > 0) lines[lines.length - 1] += ` ${line.trim()}`;
      else lines.push(line);
    }
    if (lines.length === 0) throw error;
    return lines;
  }
}

const tempDir = useTempDirs('pixhook-docs-compile-');
const blocks = docFiles()
  .flatMap((file) => codeBlocks(file))
  .filter(checked);
let tsErrors: string[] = [];
let jsErrors: string[] = [];

describe('docs compile', () => {
  beforeAll(async () => {
    await requireBuiltPackage();
    const dir = tempDir();
    linkPackage(dir);
    mkdirSync(`${dir}/blocks`);
    writeFileSync(`${dir}/package.json`, JSON.stringify({ name: 'docs-check', private: true, type: 'module' }));
    writeFileSync(`${dir}/runtimes.d.ts`, runtimes);
    writeFileSync(`${dir}/js-only.d.ts`, jsOnly);
    writeFileSync(`${dir}/next-server.d.ts`, nextServer);
    const toCheck = blocks.filter((b) => !b.flags.includes('nocheck'));
    for (const block of toCheck) writeFileSync(`${dir}/blocks/${fileName(block)}`, `${block.code}\n`);
    writeFileSync(`${dir}/blocks/negative_check.ts`, brokenBlock);
    const tsFiles = [...toCheck.filter(isTs).map((b) => `blocks/${fileName(b)}`), 'blocks/negative_check.ts', 'runtimes.d.ts'];
    const jsFiles = [
      ...toCheck.filter((b) => !isTs(b)).map((b) => `blocks/${fileName(b)}`),
      'runtimes.d.ts',
      'js-only.d.ts',
      'next-server.d.ts',
    ];
    writeFileSync(`${dir}/tsconfig.ts.json`, JSON.stringify({ compilerOptions, files: tsFiles }));
    writeFileSync(
      `${dir}/tsconfig.js.json`,
      JSON.stringify({ compilerOptions: { ...compilerOptions, allowJs: true, checkJs: true }, files: jsFiles }),
    );
    [tsErrors, jsErrors] = await Promise.all([typeCheck(dir, 'tsconfig.ts.json'), typeCheck(dir, 'tsconfig.js.json')]);
  }, 180_000);

  it('finds the blocks of the README and every docs file', () => {
    expect(blocks.filter(isTs).length).toBeGreaterThanOrEqual(15);
    expect(blocks.filter((b) => !isTs(b)).length).toBeGreaterThan(10);
    expect(new Set(blocks.map((b) => b.file))).toContain('README.md');
  });

  it('keeps the fragments that are not checked to the listed ones', () => {
    expect(blocks.filter((b) => b.flags.includes('nocheck')).map((b) => `${b.file}:${b.line}`)).toEqual(allowedFragments);
  });

  it('detects a block that does not compile', () => {
    const negative = tsErrors.filter((line) => line.startsWith('blocks/negative_check.ts'));
    expect(negative.some((line) => line.includes("'notAnOption' does not exist"))).toBe(true);
    expect(negative.some((line) => line.includes("Property 'transfer' does not exist"))).toBe(true);
  });

  it('every TypeScript block compiles under strict', () => {
    expect(readable(tsErrors.filter((line) => !line.startsWith('blocks/negative_check.ts')))).toEqual([]);
  });

  it('every JavaScript block compiles under strict with checkJs', () => {
    expect(readable(jsErrors)).toEqual([]);
  });
});

/** `blocks/docs_production_md_L70.ts(3,5): error …` → `docs/production.md:72: error …`. */
function readable(errors: string[]): string[] {
  return errors.map((line) => {
    const match = /^blocks\/(.+)_L(\d+)\.(?:ts|js)\((\d+),\d+\): (.*)$/.exec(line);
    if (!match) return line;
    const block = blocks.find((b) => fileName(b) === `${match[1]}_L${match[2]}.${line.includes('.ts(') ? 'ts' : 'js'}`);
    return block ? `${block.file}:${block.line + Number(match[3]) - 1}: ${match[4]}` : line;
  });
}
