import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// An export nobody imports is a promise to no one: it widens what a reader must keep in mind and hides
// dead code from the compiler. Every export in src/, adapters/ and cli/ must be named in another file.
const searched = ['src', 'adapters', 'cli', 'test', 'bench', 'scripts', 'examples', 'bin'];

/** Package entry points: what they export is the public API (the export snapshot reviews it). */
const entryPoint = /^(src\/index\.ts|src\/[a-z-]+\/index\.ts|adapters\/[a-z]+\/index\.ts)$/;

// Left to the work now reshaping these folders (the delivery pipeline, the book): remove each as it goes.
const pending = new Set([
  'src/book/book-state.ts: emptyResource',
  'src/book/book-state.ts: RecordInput',
  'src/book/book-state.ts: RecordStep',
  'src/book/dispute-alerts.ts: DisputeAlertsOptions',
  'src/book/dispute-alerts.ts: DisputeAlerts',
  'src/book/dispute-update.ts: isOpenDisputeStatus',
  'src/intake/read-body.ts: ParsedJson',
  'src/intake/receive-answer.ts: AnswerExtra',
  'src/intake/receiver-options.ts: ResolvedIntakeOptions',
  'src/journal/journal-query.ts: defaultListLimit',
  'src/journal/journal-writer.ts: maxBacklog',
  'src/journal/memory-journal.ts: maxAttemptsPerEntry',
  'src/journal/shared-journal-feed.ts: ChangesSince',
  'src/postgres/book-schema.ts: BookNames',
  'src/processing/create-processing.ts: raceDeadline',
  'src/processing/journal-hook.ts: JournalLink',
  'src/processing/run-attempt.ts: AttemptInput',
  'src/redis/joined-book-claim.ts: BookSite',
  'src/redis/book-scripts.ts: BookKeys',
]);

const declaration =
  /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum|abstract\s+class)\s+([A-Za-z_$][\w$]*)/gm;

/** `file: name` for every export declared in `files` that no other file names. */
function deadExports(files: ReadonlyMap<string, string>): string[] {
  // Each identifier → how many files name it: one pass over the text, not one search per export.
  const wordsOf = new Map([...files].map(([file, text]) => [file, new Set(text.match(/[A-Za-z_$][\w$]*/g) ?? [])]));
  const filesNaming = new Map<string, number>();
  for (const words of wordsOf.values()) for (const word of words) filesNaming.set(word, (filesNaming.get(word) ?? 0) + 1);
  const dead: string[] = [];
  for (const [file, text] of files) {
    if (!/^(src|adapters|cli)\//.test(file) || entryPoint.test(file)) continue;
    for (const [, name] of text.matchAll(declaration)) {
      if ((filesNaming.get(name!) ?? 0) <= 1) dead.push(`${file}: ${name}`);
    }
  }
  return dead;
}

/** Source files under `dir`, never descending into installed packages or build output. */
function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return /^(node_modules|dist|coverage|\.next|\.app-.*)$/.test(entry.name) ? [] : walk(path);
    return /\.(ts|tsx|js|mjs)$/.test(entry.name) ? [path] : [];
  });
}

function sourceFiles(): Map<string, string> {
  const files = searched.flatMap((dir) => walk(dir));
  return new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
}

describe('exports', () => {
  it('are each imported somewhere else (or are a package entry point)', () => {
    expect(deadExports(sourceFiles()).filter((entry) => !pending.has(entry))).toEqual([]);
  });

  it('finds an export no other file names', () => {
    const files = new Map([
      ['src/shared/a.ts', 'export function used() {}\nexport const unused = 1;\nexport interface Lonely {}'],
      ['src/shared/b.ts', "import { used } from './a.js';"],
      ['src/index.ts', 'export function publicOnly() {}'],
    ]);
    expect(deadExports(files)).toEqual(['src/shared/a.ts: unused', 'src/shared/a.ts: Lonely']);
  });
});
