import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Runs examples/emulator-e2e/run.js as a real process on the built package (`npm run build` first).
const example = fileURLToPath(new URL('../../examples/emulator-e2e/run.js', import.meta.url));

function runExample(variant: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [example], { env: { ...process.env, PIXHOOK_VARIANT: variant } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('examples/emulator-e2e', () => {
  it.each(['a', 'b', 'short'])(
    'variant %s: register, charge, pay → exactly one transaction_paid handled, then read back as paid',
    async (variant) => {
      const { code, stdout, stderr } = await runExample(variant);
      expect(stderr).toBe('');
      const summary = JSON.parse(stdout.trim()) as {
        chargeId: string;
        paidDeliveries: { scope: string; delivered: boolean }[];
        handled: { id: string; amountInCents: number }[];
        transactionStatus: string;
        transactionAmountInCents: number;
      };
      // Two signed deliveries of the same event (webhook + postbackUrl), both acknowledged…
      expect(summary.paidDeliveries.map((d) => d.scope).sort()).toEqual(['postback', 'user']);
      expect(summary.paidDeliveries.every((d) => d.delivered)).toBe(true);
      // …one handled, with the charge's amount.
      expect(summary.handled).toEqual([expect.objectContaining({ id: summary.chargeId, amountInCents: 2590 })]);
      expect(summary.transactionStatus).toBe('paid');
      expect(summary.transactionAmountInCents).toBe(2590);
      expect(code).toBe(0);
    },
  );
});
