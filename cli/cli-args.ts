import { parseArgs, type ParseArgsConfig } from 'node:util';
import { describeError, PixhookConfigError, PixhookError } from '../src/index.js';
import { jsonText } from './shared/json-text.js';

/** A bad command line: the command prints the message and exits 2. */
export class UsageError extends PixhookError {
  override name = 'UsageError';
  constructor(message: string) {
    super('usage', message);
    this.message = message;
  }
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

/**
 * The webhook secrets: `--secret` (repeat it while rotating keys: any one may match), else
 * `PIXHOOK_SECRET`, which is always **one** secret (never split: a comma may be part of it). An empty
 * or blank secret is refused everywhere.
 */
export function secretsFrom(flag: string | string[] | undefined): string[] {
  const given = typeof flag === 'string' ? [flag] : (flag ?? []);
  const env = process.env['PIXHOOK_SECRET'];
  const secrets = given.length > 0 ? given : env !== undefined && env !== '' ? [env] : [];
  if (secrets.length === 0) throw new UsageError('a webhook secret is required: --secret <s> (repeatable) or PIXHOOK_SECRET');
  if (secrets.some((s) => s.trim() === '')) throw new UsageError('a webhook secret must not be empty');
  return secrets;
}

export function portFrom(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, got ${jsonText(value)}`);
  return port;
}

/** A file named on the command line that cannot be read is a usage error (exit 2), for every command. */
export async function readInputFile(flag: string, path: string): Promise<Uint8Array> {
  const { readFile } = await import('node:fs/promises');
  try {
    return new Uint8Array(await readFile(path));
  } catch (error) {
    throw new UsageError(`cannot read ${flag} ${jsonText(path)}: ${(error as NodeJS.ErrnoException).code ?? describeError(error)}`);
  }
}

// Errors of the machine or the network, not of the command line: exit 1 with one line.
const operationalCodes = new Set(['ENOENT', 'EISDIR', 'EACCES', 'EPERM', 'EADDRINUSE', 'EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN', 'EINVAL', 'ECONNREFUSED', 'redis_unavailable']);

/**
 * Runs a command body. Every failure is one line on stderr: usage and configuration errors exit 2
 * with the usage line; the machine's or the network's errors exit 1; anything else (a bug) exits 1
 * too, with its stack only when `PIXHOOK_DEBUG=1`.
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
      process.stderr.write(`pixhook: ${describeError(error).replace(/^\w*Error: /, '')}\n`);
      return 1;
    }
    process.stderr.write(`pixhook: unexpected error: ${describeError(error)}\n`);
    if (process.env['PIXHOOK_DEBUG'] === '1' && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    return 1;
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
