import { describe, expect, it } from 'vitest';
import { shippedLinesMatching } from './shipped-lines.js';

// Everything pixhook throws is a PixhookError with a stable code (docs/reference/reasons.md): a bare
// `throw new Error` gives a caller nothing to match on.
const bareThrow = /\bthrow\s+new\s+Error\s*\(/;

describe('the error root', () => {
  it('has no bare `throw new Error` in src/, adapters/, cli/ or bin/', () => {
    expect(shippedLinesMatching(bareThrow)).toEqual([]);
  });

  it('recognizes one', () => {
    expect(bareThrow.test("    if (!ok) throw new Error('no');")).toBe(true);
    expect(bareThrow.test("throw new PixhookError('usage', 'no');")).toBe(false);
  });
});
