import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { sendHttp, type ContractResponse } from '../contract/contract-target.js';
import { shortPaid, variantAPaid, variantBPaid } from '../contract/fixtures.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const exampleSecret = 'whsec_example_e2e';

/** Examples import `pixhook/*`, which resolves to the built `dist/` (npm test builds before vitest). */
export async function requireBuiltPackage(): Promise<void> {
  const entries = ['src/index.js', ...['express', 'fastify', 'next', 'node', 'web'].map((a) => `adapters/${a}/index.js`)];
  // A build running at the same moment (rm -rf dist && tsc) refills dist within seconds.
  for (let waited = 0; waited <= 30_000; waited += 250) {
    if (entries.every((entry) => existsSync(`${repoRoot}dist/${entry}`))) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('examples import the built package: run `npm run build` first (npm test does)');
}

export interface RunningExample {
  stdout(): string[];
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts an example as its own process and waits until `url` answers HTTP. */
export async function startExample(options: {
  command: string;
  args: string[];
  cwd?: string;
  env?: Record<string, string>;
  waitFor: string;
  timeoutMs?: number;
}): Promise<RunningExample> {
  const child = spawn(options.command, options.args, {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // own process group, so `next start`'s workers stop with it
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const running: RunningExample = {
    stdout: () => out.split('\n').filter((line) => line.trim() !== ''),
    stderr: () => err,
    stop: () => stop(child),
  };
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    if (child.exitCode !== null) throw new Error(`example exited with ${child.exitCode}:\n${out}\n${err}`);
    try {
      await sendHttp(options.waitFor, { method: 'GET', headers: {} });
      return running;
    } catch {
      if (Date.now() > deadline) {
        await running.stop();
        throw new Error(`example did not answer at ${options.waitFor}:\n${out}\n${err}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGTERM');
  const timer = setTimeout(() => child.pid !== undefined && child.exitCode === null && process.kill(-child.pid, 'SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

function signed(payload: unknown, secret = exampleSecret) {
  const body = bytesOf(payload);
  return { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': signBytes(body, secret) }, body };
}

function answer(response: ContractResponse): string {
  const body = JSON.parse(response.body) as { error?: string; reason?: string };
  return `${response.status} ${body.error ?? body.reason ?? 'ok'}`;
}

/**
 * What the gateway does to a merchant: the three shapes of transaction_paid, a retry of the first, and a
 * forgery. Checks every answer, then that exactly the three real events were printed, once each.
 */
export async function deliverScenario(url: string, example: RunningExample, tag?: string): Promise<void> {
  const answers: string[] = [];
  for (const request of [
    signed(variantAPaid),
    signed(variantBPaid),
    signed(shortPaid),
    signed(variantAPaid), // the sender's retry
    signed({ ...variantBPaid, transaction: { ...variantBPaid.transaction, id: 'tx_forged' } }, 'whsec_attacker'),
  ]) {
    answers.push(answer(await sendHttp(url, request)));
  }
  expect(answers).toEqual(['200 ok', '200 ok', '200 ok', '200 duplicate', '401 signature_mismatch']);

  const expected = ['paid tx_a_0001 15990 a', 'paid tx_b_0001 2500 b', 'paid tx_s_0001 990 short'].map((line) =>
    tag ? `${line} ${tag}` : line,
  );
  const printed = () => example.stdout().filter((line) => line.startsWith('paid ') && (tag === undefined || line.endsWith(` ${tag}`)));
  // Background mode prints after answering: give it a moment.
  for (let waited = 0; printed().length < expected.length && waited < 5_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(printed().sort()).toEqual(expected.sort());
}
