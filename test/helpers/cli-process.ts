import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const pixhookBin = fileURLToPath(new URL('../../bin/pixhook.js', import.meta.url));

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the first match of `pattern` in stdout+stderr, or rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** The exit code once the process ends by itself. */
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/** Starts `pixhook <args>` as its own process, like a user would. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): RunningCli {
  const child = spawn(process.execPath, [pixhookBin, ...args], { env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    stdout: () => out,
    stderr: () => err,
    waitFor(pattern, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = () => {
          const match = (out + err).match(pattern);
          if (match) return resolve(match);
          if (child.exitCode !== null) return reject(new Error(`exited ${child.exitCode}: ${err}`));
          if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${pattern}: ${out}${err}`));
          setTimeout(poll, 20);
        };
        poll();
      });
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface RunOptions {
  input?: Uint8Array | string;
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** SIGKILL the process if it is still running after this long (its `code` is then null and `killed` true). */
  killAfterMs?: number;
}

/** Runs a Node script to completion with optional stdin; `env` values of undefined are removed. `ms`: from spawn to exit. */
export function runProcess(script: string, args: string[] = [], options: RunOptions = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string; ms: number; killed: boolean }>((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
    for (const [name, value] of Object.entries(options.env ?? {})) if (value === undefined) delete env[name];
    const startedAt = performance.now();
    const child = spawn(process.execPath, [script, ...args], { env, ...(options.cwd && { cwd: options.cwd }) });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const timer =
      options.killAfterMs === undefined ? undefined : setTimeout(() => ((killed = true), child.kill('SIGKILL')), options.killAfterMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', () => clearTimeout(timer));
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Math.round(performance.now() - startedAt), killed }));
    child.stdin.end(options.input ?? '');
  });
}

/** Runs `pixhook <args>` to completion with optional stdin. */
export function runCli(args: string[], options: Omit<RunOptions, 'cwd'> = {}) {
  return runProcess(pixhookBin, args, options);
}

/** `NAME=value` lines (the emulator's start-up output) as an object. */
export function envLines(stdout: string): Record<string, string> {
  return Object.fromEntries(
    stdout
      .trim()
      .split('\n')
      .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );
}

/** A command's JSON-lines output, one object per non-empty line. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
