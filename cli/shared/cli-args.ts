import { parseArgs, type ParseArgsConfig } from 'node:util';
import { PixhookConfigError, PixhookError, type PixhookErrorCode } from '../../src/index.js';
import { describeError } from '../../src/shared/describe-error.js';
import { checkNumber, maxAttempts, maxDelayMs, maxTtlMs, type NumberBounds } from '../../src/shared/option-checks.js';
import type { Backoff, RetryOptions } from '../../src/shared/retry-options.js';
import { escapeControls } from '../../src/shared/escape-controls.js';
import { redactSecrets } from '../../src/shared/redact-secrets.js';
import { unknownLine, type FlagHelp } from './command-help.js';
import { jsonText } from './json-text.js';

/** A bad command line: the command prints the message and exits 2. */
export class UsageError extends PixhookError {
  override name = 'UsageError';
  constructor(message: string) {
    super('usage', message);
  }
}

/** A failure of the machine, the network or a missing package: the command prints the message as it is and exits 1. */
export class CommandFailure extends PixhookError {
  override name = 'CommandFailure';
  constructor(code: PixhookErrorCode, message: string) {
    super(code, message);
  }
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>;

/**
 * `parseArgs` with strict checking, its errors turned into one-line `UsageError`s in pixhook's words
 * (an unknown flag names the closest one; no parser codes or advice about `--`).
 */
export function parseCommandLine<O extends Options>(argv: string[], options: O, allowPositionals = false): Parsed<O> {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true }) as Parsed<O>;
  } catch (error) {
    throw new UsageError(parserErrorLine(error, Object.keys(options)));
  }
}

function parserErrorLine(error: unknown, names: string[]): string {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
  const flag = /--?[\w-]+/.exec(quoted)?.[0] ?? quoted;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
    return unknownLine(
      'flag',
      flag,
      names.map((n) => `--${n}`),
    );
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `unexpected argument '${escapeControls(quoted)}'`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    if (/does not take an argument/.test(message)) return `\`${flag}\` takes no value`;
    const long = quoted.match(/--[\w-]+/g)?.at(-1) ?? flag;
    return /ambiguous/.test(message)
      ? `\`${long}\` needs a value (write ${long}=<value> for a value that starts with '-')`
      : `\`${long}\` needs a value`;
  }
  return escapeControls(message.split('\n')[0] ?? '');
}

/**
 * The webhook secrets: `--secret` (repeat it while rotating keys: any one may match), else
 * `PIXHOOK_SECRET`, which is always **one** secret (never split: a comma may be part of it). An empty
 * or blank secret is refused everywhere.
 */
export function secretsFrom(flag: string | string[] | undefined): string[] {
  const given = typeof flag === 'string' ? [flag] : (flag ?? []);
  const env = process.env['PIXHOOK_SECRET'];
  if (given.length > 0) {
    if (given.some((s) => s.trim() === '')) throw new UsageError('a webhook secret must not be empty: `--secret` was given a blank value');
    return given;
  }
  if (env === undefined || env === '') throw new UsageError('a webhook secret is required: set PIXHOOK_SECRET or pass --secret <s>');
  if (env.trim() === '')
    throw new UsageError('a webhook secret must not be empty: PIXHOOK_SECRET is blank; set it to the secret or pass --secret <s>');
  return [env];
}

export function portFrom(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new UsageError(`--port must be an integer from 0 to 65535, got ${jsonText(value)}`);
  return port;
}

/** The bounds of the CLI's numeric flags (the library's own, from its option checks). */
export const flagBounds = {
  attempts: { min: 1, max: maxAttempts },
  delayMs: { min: 0, max: maxDelayMs, note: '(24 h)' },
  timeoutMs: { min: 1, max: maxDelayMs, note: '(24 h)' },
  ageMs: { min: 1, max: maxTtlMs, note: '(366 days)' },
  concurrency: { min: 1, max: 1_000 },
} as const satisfies Record<string, NumberBounds>;

/** A whole-number flag: decimal digits only (`1e3`, `0x10`, `1.5` and `''` are refused) within `bounds`, else exit 2. */
export function integerFlag(flag: string, value: string, bounds: NumberBounds): number {
  return checkNumber(flag, /^\d{1,16}$/.test(value) ? Number(value) : value, bounds);
}

/** The one set of retry flags, for every command that retries; each left out takes the library's default. */
export const retryFlags = {
  attempts: { type: 'string' },
  'backoff-ms': { type: 'string' },
  'backoff-factor': { type: 'string' },
  'max-backoff-ms': { type: 'string' },
} as const;

/** The retry flags' help lines, with the command's defaults. */
export function retryFlagsHelp(defaults: { attempts: number; delayMs: number; maxDelayMs?: number }, scope = ''): FlagHelp[] {
  return [
    { flag: '--attempts <n>', meaning: `attempts in total, 1–100${scope} (default ${defaults.attempts})` },
    { flag: '--backoff-ms <n>', meaning: `the first wait, 0–86400000 ms (24 h) (default ${defaults.delayMs})` },
    { flag: '--backoff-factor <x>', meaning: 'each wait is the previous one times this, 1–10 (default 2)' },
    {
      flag: '--max-backoff-ms <n>',
      meaning: `the longest wait, 0–86400000 ms (24 h) (default ${defaults.maxDelayMs ?? 86_400_000})`,
    },
  ];
}

/** `--secret`, for the commands that verify or sign. */
export const secretFlagHelp: FlagHelp = {
  flag: '--secret <s>',
  meaning: 'the webhook secret; repeat it while rotating keys (any one may match) (default: PIXHOOK_SECRET)',
};
export const secretEnvHelp = { PIXHOOK_SECRET: 'the webhook secret, when no --secret is given' };

/** The gateway credentials every command that calls its API reads. */
export const apiEnvHelp = {
  PIXHOOK_API_KEY: 'the gateway API key (required)',
  PIXHOOK_API_SECRET: 'the gateway API secret (required)',
  PIXHOOK_BASE_URL: "the gateway API's base URL (required)",
};

/** The `retry` option the retry flags ask for: `{ attempts, backoff: { delayMs, factor, maxDelayMs } }`, only what was given. */
export function retryFromFlags(values: {
  attempts?: string;
  'backoff-ms'?: string;
  'backoff-factor'?: string;
  'max-backoff-ms'?: string;
}): RetryOptions {
  const backoff: Backoff = {};
  if (values['backoff-ms'] !== undefined) backoff.delayMs = integerFlag('--backoff-ms', values['backoff-ms'], flagBounds.delayMs);
  if (values['backoff-factor'] !== undefined) {
    const given = values['backoff-factor'];
    backoff.factor = checkNumber('--backoff-factor', /^\d{1,6}(?:\.\d{1,6})?$/.test(given) ? Number(given) : given, {
      min: 1,
      max: 10,
      integer: false,
    });
  }
  if (values['max-backoff-ms'] !== undefined)
    backoff.maxDelayMs = integerFlag('--max-backoff-ms', values['max-backoff-ms'], flagBounds.delayMs);
  const retry: RetryOptions = {};
  if (values.attempts !== undefined) retry.attempts = integerFlag('--attempts', values.attempts, flagBounds.attempts);
  if (Object.keys(backoff).length > 0) retry.backoff = backoff;
  return retry;
}

const durationUnits: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** A duration flag — `500ms`, `30s`, `2m`, `48h` or plain milliseconds — in whole milliseconds within `bounds`, else exit 2. */
export function durationFlag(flag: string, value: string, bounds: NumberBounds): number {
  const match = /^(\d{1,16}(?:\.\d{1,6})?)(ms|s|m|h)?$/.exec(value.trim());
  if (!match) throw new UsageError(`${flag} must be a duration like 30s, 2m, 48h or 5000ms, got ${jsonText(value)}`);
  return checkNumber(flag, Math.round(Number(match[1]) * durationUnits[match[2] ?? 'ms']!), {
    ...bounds,
    note: `ms${bounds.note === undefined ? '' : ` ${bounds.note}`}`,
  });
}

// Errors of the machine or the network, not of the command line: exit 1 with one line.
const operationalCodes = new Set([
  'ENOENT',
  'EISDIR',
  'EACCES',
  'EPERM',
  'EADDRINUSE',
  'EADDRNOTAVAIL',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EINVAL',
  'ECONNREFUSED',
  'redis_unavailable',
]);

/**
 * Runs a command body. Every failure is one line on stderr: usage and configuration errors exit 2,
 * ending with where the help is (`(pixhook <command> --help)`); the machine's or the network's errors
 * exit 1; anything else (a bug) exits 1 too, with its stack only when `PIXHOOK_DEBUG=1`.
 */
export async function runCommand(command: string, body: () => Promise<number>): Promise<number> {
  // A failure may quote a connection string, a token or a module's error: its credentials are masked.
  const stderr = { write: (line: string) => process.stderr.write(redactSecrets(line)) };
  try {
    return await body();
  } catch (error) {
    if (error instanceof CommandFailure) {
      stderr.write(`${prefixed(error.message)}\n`);
      return 1;
    }
    const missing = missingPackage(error);
    if (missing !== undefined) {
      stderr.write(`pixhook: ${missing}\n`);
      return 1;
    }
    if (error instanceof UsageError || error instanceof PixhookConfigError) {
      stderr.write(`${prefixed(error.message).replace(/\s*\n\s*/g, ' ')} (pixhook ${command} --help)\n`);
      return 2;
    }
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && operationalCodes.has(code)) {
      stderr.write(`pixhook: ${describeError(error).replace(/^\w*Error: /, '')}\n`);
      return 1;
    }
    stderr.write(`pixhook: unexpected error: ${describeError(error)}\n`);
    if (process.env['PIXHOOK_DEBUG'] === '1' && error instanceof Error) stderr.write(`${error.stack}\n`);
    return 1;
  }
}

/** `pixhook: <message>`, unless the message already names pixhook (`pixhook: …`, `pixhook worker: …`). */
function prefixed(message: string): string {
  return /^pixhook[ :]/.test(message) ? message : `pixhook: ${message}`;
}

// What each optional package is for: a missing one is one line naming what to install, not a stack.
const optionalPackages: Record<string, string> = {
  ioredis: '--redis',
  bullmq: 'the durable queue (listen --mode durable, worker)',
  pg: 'the Postgres store',
  express: 'the Express adapter',
};

function missingPackage(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  const name = code === 'ERR_MODULE_NOT_FOUND' ? /Cannot find package '([^']+)'/.exec(message)?.[1] : undefined;
  return name !== undefined && Object.hasOwn(optionalPackages, name) ? missingPackageLine(name) : undefined;
}

function missingPackageLine(name: string): string {
  return `${optionalPackages[name] ?? name} needs the optional package ${name}: npm install ${name}`;
}

/**
 * Finds an optional package (without loading it) before anything is opened, so its absence is one
 * line (exit 1) and nothing is left running.
 */
export function requirePackage(name: 'ioredis' | 'bullmq'): void {
  try {
    import.meta.resolve(name);
  } catch (error) {
    if (missingPackage(error) !== undefined) throw new CommandFailure('config_invalid', missingPackageLine(name));
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
