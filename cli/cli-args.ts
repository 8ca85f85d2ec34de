import { parseArgs, type ParseArgsConfig } from 'node:util';
import { PixhookConfigError } from '../src/index.js';

/** A bad command line: the command prints the message and exits 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>;

/** `parseArgs` with strict checking, turning its errors into `UsageError`. */
export function parseCommandLine<O extends Options>(argv: string[], options: O, allowPositionals = false): Parsed<O> {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true }) as Parsed<O>;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** `--secret` (repeatable, for key rotation), else `PIXHOOK_SECRET` (comma-separated for several). */
export function secretsFrom(flag: string | string[] | undefined): string[] {
  const given = typeof flag === 'string' ? [flag] : (flag ?? []);
  if (given.length > 0) return given;
  const env = process.env['PIXHOOK_SECRET'];
  if (env) return env.split(',');
  throw new UsageError('a webhook secret is required: --secret <s> or PIXHOOK_SECRET');
}

export function portFrom(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0–65535, got "${value}"`);
  return port;
}

// Errors of the machine, not of pixhook: one line is clearer than a stack trace.
const operationalCodes = new Set(['ENOENT', 'EISDIR', 'EACCES', 'EPERM', 'EADDRINUSE', 'EADDRNOTAVAIL']);

/**
 * Runs a command body: usage and configuration errors exit 2 with the usage line; a missing file or
 * a port in use exits 1 with one line; anything else is a bug and keeps its stack.
 */
export async function runCommand(usage: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof UsageError || error instanceof PixhookConfigError) {
      process.stderr.write(`pixhook: ${error.message.replace(/^pixhook: /, '')}\nusage: pixhook ${usage}\n`);
      return 2;
    }
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && operationalCodes.has(code)) {
      process.stderr.write(`pixhook: ${(error as Error).message}\n`);
      return 1;
    }
    throw error;
  }
}

/** Resolves on the first SIGINT or SIGTERM, so long-running commands can close cleanly. */
export function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
