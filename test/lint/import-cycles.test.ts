import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

// No cycles in the core's import graph, type-only imports included: a type cycle still ties two files'
// changes together and hides which one is the lower layer.
const core = ['shared', 'events', 'signature', 'dedupe', 'metrics', 'book', 'journal', 'processing', 'intake', 'adapter-kit'];

/** Every relative import and re-export of `file` (static, type-only and dynamic), as repository paths. */
function importsOf(file: string, text: string): string[] {
  const specifiers = [
    ...text.matchAll(/\b(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gs),
    ...text.matchAll(/\bimport\s+'(\.[^']+)'/g),
    ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g),
  ].map((m) => m[1]!);
  return specifiers.map((s) => normalize(join(dirname(file), s)).replace(/\.js$/, '.ts'));
}

/** The strongly connected components of more than one file (Tarjan), each sorted. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

function coreGraph(): Map<string, string[]> {
  const files = core.flatMap((folder) =>
    readdirSync(`src/${folder}`, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join('src', folder, f)),
  );
  return new Map(files.map((file) => [file, importsOf(file, readFileSync(file, 'utf8'))]));
}

describe('the core import graph', () => {
  it('has no cycles, type-only imports included', () => {
    expect(cyclesOf(coreGraph())).toEqual([]);
  });

  it('reads type-only imports, re-exports and dynamic imports', () => {
    const text =
      "import type { A } from './a.js';\nexport { b } from '../b/b.js';\nconst c = await import('./c.js');\nimport {\n  d,\n} from './d.js';";
    expect(importsOf('src/x/y.ts', text).sort()).toEqual(['src/b/b.ts', 'src/x/a.ts', 'src/x/c.ts', 'src/x/d.ts']);
  });

  it('finds a type-only cycle', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cyclesOf(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
    expect(
      cyclesOf(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
  });
});
