import { readdirSync, readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// The shipped .d.ts carries what sits right above each declaration: a comment that drifted onto a
// helper leaves the adapter's one function undocumented in every editor.
function undocumented(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  return source.statements
    .filter((node): node is ts.FunctionDeclaration => ts.isFunctionDeclaration(node))
    .filter((node) => node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword))
    .filter((node) => ts.getJSDocCommentsAndTags(node).length === 0)
    .map((node) => `${file}: ${node.name?.text ?? 'default'}`);
}

describe('adapter entry points', () => {
  const adapters = readdirSync('adapters').map((name) => `adapters/${name}/index.ts`);

  it('document every function they export', () => {
    expect(adapters.flatMap((file) => undocumented(file, readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('sees a doc comment stranded on a helper', () => {
    const text = '/** The adapter. */\nfunction helper() {}\nexport function createThing() {}\n';
    expect(undocumented('x.ts', text)).toEqual(['x.ts: createThing']);
    expect(undocumented('x.ts', '/** The adapter. */\nexport function createThing() {}\n')).toEqual([]);
  });
});
