import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/cli-process.js';

// Starts `examples/demo/run.js` for real (it imports the built package: `npm test` builds first).
const demo = join(import.meta.dirname, '../../examples/demo/run.js');

function runDemo() {
  return runProcess(demo, [], { cwd: join(import.meta.dirname, '../..') });
}

describe('npm run demo', () => {
  it('runs every scenario as the contract says and prints the table', async () => {
    const run = await runDemo();
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const rows = run.stdout.split('\n').filter((line) => /^[✓✗] \d/.test(line));
    expect(rows).toHaveLength(9);
    expect(rows.every((row) => row.startsWith('✓'))).toBe(true);
    const row = (n: number) => rows[n - 1]!.split(/ {2,}/);
    expect(row(5).slice(1, 5)).toEqual(['same delivery retried 5 times', '5', '200, 200 duplicate×4', 'yes']);
    expect(row(6).slice(1, 5)).toEqual(['forged signature', '5', '401 signature_mismatch×5', 'no']);
    expect(row(7).slice(1, 5)).toEqual(['malformed body (signed)', '5', '400 json_invalid×5', 'no']);
    expect(row(9).slice(1, 5)).toEqual(['handler fails once (inline)', '2', '500 handler_failed, 200', 'yes (2 runs)']);
    // The exactly-once scenarios on an embedded PGlite: one ledger row each, the restart's redelivery a duplicate.
    const pg = run.stdout
      .split('\n')
      .filter((line) => /^[✓✗] pg\d/.test(line))
      .map((line) => line.split(/ {2,}/));
    expect(pg.map((r) => r[0])).toEqual(['✓ pg1', '✓ pg2', '✓ pg3']);
    expect(pg.map((r) => [r[3], r[4]])).toEqual([
      ['200', '1 (1 run)'],
      ['200 duplicate', '1 (0 runs, skipped)'],
      ['500 handler_failed, 200', '1 (2 runs)'],
    ]);
    expect(run.stdout).toContain('every delivery behaved as the receiver contract says.');
  });
});
