import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/cli-process.js';

const script = fileURLToPath(new URL('../../bench/psp.js', import.meta.url));

interface PspFigures {
  ratio: { median: number; min: number; max: number };
  measure: string;
  goal: number;
  withinBudget: boolean;
  rps: number;
  cpuUs: number;
  emulatorCpuUs?: number;
}

// A smoke run keeps the PSP bench working (Asaas, PagBank, Woovi and Mercado Pago deliveries against a gateway
// delivery of the same size, all through the node adapter, Mercado Pago fetching from the emulator in its own
// process); no timing is asserted here: the ratios are read from a full run.
describe('node bench/psp.js (quick mode)', () => {
  it('serves every route without a non-2xx answer and prints each PSP ratio with its goal', { timeout: 120_000 }, async () => {
    const { code, stdout, stderr } = await runProcess(script, ['--quick']);
    expect(code, stderr).toBe(0);
    const figures = JSON.parse(stdout.trim().split('\n').pop() ?? '') as Record<string, unknown> & {
      bytes: number;
      gateway: { rps: number; cpuUs: number };
      withinBudget: boolean;
    };
    expect(figures.bytes).toBe(1024);
    expect(figures.gateway.rps).toBeGreaterThan(0);
    expect(figures.gateway.cpuUs).toBeGreaterThan(0);
    const goals = { asaas: 1.1, pagbank: 1.1, woovi: 1.1, mercadoPago: 1.2 };
    for (const [name, goal] of Object.entries(goals)) {
      const psp = figures[name] as PspFigures;
      expect(psp.goal, name).toBe(goal);
      expect(psp.rps, name).toBeGreaterThan(0);
      expect(psp.cpuUs, name).toBeGreaterThan(0);
      expect(psp.ratio.median, name).toBeGreaterThan(0);
      expect(psp.withinBudget, name).toBe(psp.ratio.median <= goal);
    }
    // Mercado Pago's ratio is server CPU; the emulator's own CPU is measured apart (its GET answered every delivery).
    expect((figures.mercadoPago as PspFigures).measure).toBe('server CPU per delivery, gateway paced at its rate');
    expect((figures.mercadoPago as PspFigures).emulatorCpuUs).toBeGreaterThanOrEqual(0);
    expect(figures.withinBudget).toBe(Object.keys(goals).every((name) => (figures[name] as PspFigures).withinBudget));
  });
});
