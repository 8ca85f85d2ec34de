import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Issue 21: the public surface is a reviewed diff. Every `exports` entry of package.json, its runtime
// values (imported from src) and its type-only names (read by the TypeScript checker), against the
// committed snapshot in __snapshots__/. A change here is a change to what merchants may call.
const root = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { exports: Record<string, string | { default: string }> };

/** `./dist/src/index.js` → `src/index.ts`: the source each subpath is built from. */
function sourceOf(target: string | { default: string }): string {
  const built = typeof target === 'string' ? target : target.default;
  return built.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts');
}

const subpaths = Object.entries(pkg.exports)
  .filter(([subpath]) => subpath !== './package.json')
  .map(([subpath, target]) => ({ subpath, source: sourceOf(target) }));

let checker: { program: ts.Program; checker: ts.TypeChecker } | undefined;

/** Every name the module exports, values and types alike (re-exports followed). */
function exportedNames(source: string): string[] {
  checker ??= (() => {
    const program = ts.createProgram(
      subpaths.map((s) => `${root}${s.source}`),
      {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        strict: true,
        skipLibCheck: true,
        noEmit: true,
        types: ['node'],
      },
    );
    return { program, checker: program.getTypeChecker() };
  })();
  const file = checker.program.getSourceFile(`${root}${source}`);
  const symbol = file && checker.checker.getSymbolAtLocation(file);
  if (!symbol) throw new Error(`no module symbol for ${source}`);
  return checker.checker.getExportsOfModule(symbol).map((s) => s.getName());
}

describe('the public surface (package.json exports)', () => {
  it('lists these subpaths, and the adapter kit is not one of them', () => {
    expect(subpaths).toMatchSnapshot();
    expect(subpaths.map((s) => s.source).some((source) => source.includes('adapter-kit'))).toBe(false);
  });

  it.each(subpaths)(
    '$subpath exports exactly these values and types',
    async ({ source }) => {
      const module = (await import(`${root}${source}`)) as Record<string, unknown>;
      const values = Object.keys(module).sort();
      const types = exportedNames(source)
        .filter((name) => !(name in module))
        .sort();
      expect({ values, types }).toMatchSnapshot();
    },
    60_000,
  );

  it('keeps one entry per key in the committed snapshot', () => {
    // A key written twice passes here and is rewritten by the next local run: a fresh clone's `npm test`
    // would leave the file modified.
    const snapshot = readFileSync(`${root}test/exports/__snapshots__/public-surface.test.ts.snap`, 'utf8');
    const keys = [...snapshot.matchAll(/^exports\[`(.*)`\] = /gm)].map((m) => m[1]);
    expect(keys.filter((key, i) => keys.indexOf(key) !== i)).toEqual([]);
    expect(keys.length).toBe(subpaths.length + 1);
  });

  it("keeps the adapters' and the CLI's internals out of every subpath", async () => {
    const internal = [
      'internalsOf',
      'withReceive',
      'assertKeptAlive',
      'messageOf',
      'signaturePrefix',
      'isBodyFailureReason',
      'reasonCodes',
      'reasonStatus',
      'defaultDedupeKey',
    ];
    for (const { source } of subpaths) {
      const module = (await import(`${root}${source}`)) as Record<string, unknown>;
      expect(
        internal.filter((name) => name in module),
        source,
      ).toEqual([]);
    }
  });
});
