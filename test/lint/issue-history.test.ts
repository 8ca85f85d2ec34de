import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Comments in shipped code say why the code is so, not which issue asked for it: the history is in git,
// and a comment narrating it drifts from the code it sits on.
const issueNote = /\/\/.*\b[Ii]ssues? #?\d+|\/\*[^]*?\b[Ii]ssues? #?\d+[^]*?\*\//;

function issueNotes(): string[] {
  return ['src', 'adapters', 'cli', 'bin'].flatMap((dir) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.(ts|js)$/.test(f) && !f.includes('node_modules'))
      .flatMap((f) =>
        readFileSync(join(dir, f), 'utf8')
          .split('\n')
          .flatMap((line, i) => (issueNote.test(line) ? [`${join(dir, f)}:${i + 1}`] : [])),
      ),
  );
}

describe('comments in src/, adapters/, cli/', () => {
  it('do not narrate issue history', () => {
    expect(issueNotes()).toEqual([]);
  });

  it('recognizes a narration, and leaves code alone', () => {
    expect(issueNote.test('// The payment book (issue 22): per charge')).toBe(true);
    expect(issueNote.test('  // Issue 23: the delivery journal')).toBe(true);
    expect(issueNote.test('const issue = parsed.error.issues[0];')).toBe(false);
  });
});
