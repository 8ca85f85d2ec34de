import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/cli-process.js';

const runScript = fileURLToPath(new URL('../../bench/run.js', import.meta.url));
const written = ['../../bench/RESULTS.md', '../../docs/reference/benchmarks.md'].map((path) => new URL(path, import.meta.url));

const headlineKeys = [
  'core_vs_limit',
  'core_vs_stripe',
  'core_vs_octokit',
  'core_vs_svix',
  'express_vs_bare',
  'fastify_vs_bare',
  'node_vs_bare',
  'web_vs_bare',
  'ack_p50_ms',
  'ack_p99_ms',
  'bytes_per_key',
  'redis_claim_vs_set',
  'node_vs_handwritten',
  'node_vs_octokit',
  'fastify_vs_handwritten',
  'express_vs_handwritten',
  'web_vs_handwritten',
  'octokit_vs_handwritten',
  'durable_vs_bullmq',
  'durable_eps',
  'bullmq_eps',
  'postgres_tx_vs_bare',
  'postgres_tx_vs_bare_x10',
  'pg_inbox_vs_bare',
  'journal_vs_none',
  'api_pix_vs_gateway',
  'book_redis_vs_lifecycle',
  'book_redis_vs_claim',
  'book_postgres_vs_bare',
  'book_memory_vs_bare',
  'book_memory_cpu_vs_bare',
  'asaas_vs_gateway',
  'pagbank_vs_gateway',
  'woovi_vs_gateway',
  'mercado_pago_cpu_vs_gateway',
] as const;

// HTTP and paired ratios carry their min–max over the rounds.
const spreadKeys = [
  'core_vs_limit',
  'node_vs_handwritten',
  'node_vs_octokit',
  'fastify_vs_handwritten',
  'web_vs_handwritten',
  'durable_vs_bullmq',
  'postgres_tx_vs_bare',
  'journal_vs_none',
  'api_pix_vs_gateway',
  'book_redis_vs_lifecycle',
  'book_redis_vs_claim',
  'book_postgres_vs_bare',
  'book_memory_vs_bare',
  'book_memory_cpu_vs_bare',
  'asaas_vs_gateway',
  'pagbank_vs_gateway',
  'woovi_vs_gateway',
  'mercado_pago_cpu_vs_gateway',
] as const;

// Needs the built package (npm run build), like `npm run bench`.
function runQuickBench() {
  return runProcess(runScript, ['--quick']);
}

// A smoke run keeps the script working: every section runs for a moment; no timing is asserted.
describe('npm run bench (quick mode)', () => {
  it('prints the table and, as its last line, JSON with every headline figure', { timeout: 180_000 }, async () => {
    const before = written.map((file) => readFileSync(file, 'utf8'));
    // A full run writes the goals' figures between these markers.
    expect(before[1]).toContain('<!-- bench:figures:start -->');
    expect(before[1]).toContain('<!-- bench:figures:end -->');
    const { code, stdout, stderr } = await runQuickBench();
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('### 1. Core receive');
    expect(stdout).toContain('### 7. Durable mode');
    expect(stdout).toContain('### 8. `receive()` with a memory journal');
    expect(stdout).toContain('### 9. A one-item standard API Pix call');
    expect(stdout).toContain('### 10. The payment book');
    expect(stdout).toContain('### 11. A PSP delivery vs a gateway delivery');
    // A smoke run writes nothing: neither the results file nor the doc's figures.
    expect(written.map((file) => readFileSync(file, 'utf8'))).toEqual(before);
    const last = stdout.trim().split('\n').pop() ?? '';
    const figures = JSON.parse(last) as Record<string, unknown>;
    for (const key of headlineKeys) {
      expect(typeof figures[key], key).toBe('number');
      expect(Number.isFinite(figures[key]), key).toBe(true);
    }
    const spread = figures.spread as Record<string, unknown>;
    for (const key of spreadKeys) {
      const [min, max] = spread[key] as number[];
      expect(min, key).toBeLessThanOrEqual(figures[key] as number);
      expect(max, key).toBeGreaterThanOrEqual(figures[key] as number);
    }
    expect(Object.keys(figures).some((key) => key.includes('prototype'))).toBe(false);
    expect(stdout).not.toContain('prototypes/');
    expect(figures.quick).toBe(true);
  });
});
