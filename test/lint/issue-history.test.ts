import { describe, expect, it } from 'vitest';
import { shippedLinesMatching } from './shipped-lines.js';

// Comments in shipped code say why the code is so, not which issue asked for it: the history is in git,
// and a comment narrating it drifts from the code it sits on.
const issueNote = /\/\/.*\b[Ii]ssues? #?\d+|\/\*[^]*?\b[Ii]ssues? #?\d+[^]*?\*\//;

describe('comments in src/, adapters/, cli/', () => {
  it('do not narrate issue history', () => {
    expect(shippedLinesMatching(issueNote)).toEqual([]);
  });

  it('recognizes a narration, and leaves code alone', () => {
    expect(issueNote.test('// The payment book (issue 22): per charge')).toBe(true);
    expect(issueNote.test('  // Issue 23: the delivery journal')).toBe(true);
    expect(issueNote.test('const issue = parsed.error.issues[0];')).toBe(false);
  });
});
