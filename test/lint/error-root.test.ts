import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Everything pixhook throws is a PixhookError with a stable code (docs/reference/reasons.md): a bare
// `throw new Error` gives a caller nothing to match on.
const bareThrow = /\bthrow\s+new\s+Error\s*\(/;

function bareThrows(): string[] {
  return ['src', 'adapters', 'cli', 'bin'].flatMap((dir) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.(ts|js)$/.test(f) && !f.includes('node_modules'))
      .flatMap((f) =>
        readFileSync(join(dir, f), 'utf8')
          .split('\n')
          .flatMap((line, i) => (bareThrow.test(line) ? [`${join(dir, f)}:${i + 1}`] : [])),
      ),
  );
}

describe('the error root', () => {
  it('has no bare `throw new Error` in src/, adapters/, cli/ or bin/', () => {
    expect(bareThrows()).toEqual([]);
  });

  it('recognizes one', () => {
    expect(bareThrow.test("    if (!ok) throw new Error('no');")).toBe(true);
    expect(bareThrow.test("throw new PixhookError('usage', 'no');")).toBe(false);
  });
});
