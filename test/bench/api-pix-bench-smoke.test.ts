import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/cli-process.js';

const script = fileURLToPath(new URL('../../bench/api-pix.js', import.meta.url));

// A smoke run keeps the API Pix cost bench working (a one-item standard call against a gateway call of the same
// size, both through the node adapter); no timing is asserted here: the ratio is read from a full run.
describe('node bench/api-pix.js (quick mode)', () => {
  it('serves both routes without a non-2xx answer and prints the cost ratio for bodies of one size', { timeout: 120_000 }, async () => {
    const { code, stdout, stderr } = await runProcess(script, ['--quick']);
    expect(code, stderr).toBe(0);
    const figures = JSON.parse(stdout.trim().split('\n').pop() ?? '') as {
      bytes: { gateway: number; apiPix: number };
      rps: { gateway: number; apiPix: number };
      costRatio: { median: number; min: number; max: number };
      withinBudget: boolean;
    };
    expect(figures.bytes.apiPix).toBe(figures.bytes.gateway);
    expect(figures.rps.gateway).toBeGreaterThan(0);
    expect(figures.rps.apiPix).toBeGreaterThan(0);
    expect(figures.costRatio.median).toBeGreaterThan(0);
    expect(typeof figures.withinBudget).toBe('boolean');
  });
});
