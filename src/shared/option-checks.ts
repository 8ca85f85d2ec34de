import { PixhookConfigError } from './pixhook-error.js';

// Every option pixhook takes is checked here, with one message format:
// "pixhook: `<option>` must be <what>, got <what was given>". Nothing else writes these checks.

const hour = 60 * 60 * 1000;
/** The longest wait or timeout pixhook takes: 24 h (a timer past 2^31 − 1 ms, ~24.8 days, fires at once). */
export const maxDelayMs = 24 * hour;
/** The longest time a stored key or record may live: 366 days. */
export const maxTtlMs = 366 * 24 * hour;
/** Runs of one event, first included. */
export const maxAttempts = 100;

export interface NumberBounds {
  min: number;
  max: number;
  /** Whole numbers only (counts, milliseconds). Default true. */
  integer?: boolean;
  /** Said after the range, e.g. "(24 h)". */
  note?: string;
}

/** The value when it is a number within `bounds`, else a `PixhookConfigError` naming `name`. */
export function checkNumber(name: string, value: unknown, bounds: NumberBounds): number {
  const integer = bounds.integer ?? true;
  if (
    typeof value === 'number' &&
    (integer ? Number.isSafeInteger(value) : Number.isFinite(value)) &&
    value >= bounds.min &&
    value <= bounds.max
  ) {
    return value;
  }
  const range = `from ${bounds.min} to ${bounds.max}${bounds.note === undefined ? '' : ` ${bounds.note}`}`;
  throw new PixhookConfigError(`pixhook: \`${name}\` must be ${integer ? 'an integer' : 'a number'} ${range}, got ${describeGiven(value)}`);
}

/** `checkNumber`, or `fallback` when the option was not given. */
export function optionalNumber(name: string, value: unknown, fallback: number, bounds: NumberBounds): number {
  return value === undefined ? fallback : checkNumber(name, value, bounds);
}

/** An integer from `min` to `max`; `fallback` when not given (undefined with no fallback is refused). */
export function checkInteger(name: string, value: unknown, min: number, max: number, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  return checkNumber(name, value, { min, max });
}

/** Runs of one event or request, first included: an integer from 1 to 100. */
export function checkAttempts(name: string, value: unknown, fallback?: number): number {
  return checkInteger(name, value, 1, maxAttempts, fallback);
}

/** A wait (backoff, delay, interval) in milliseconds: an integer from 0 to 24 h. */
export function checkDelayMs(name: string, value: unknown, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  return checkNumber(name, value, { min: 0, max: maxDelayMs, note: '(24 h)' });
}

/** A time limit in milliseconds: an integer from 1 to 24 h. */
export function checkTimeoutMs(name: string, value: unknown, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  return checkNumber(name, value, { min: 1, max: maxDelayMs, note: '(24 h)' });
}

/** How long a stored key or record lives, in milliseconds: an integer from 1 to 366 days. */
export function checkTtlMs(name: string, value: unknown, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  return checkNumber(name, value, { min: 1, max: maxTtlMs, note: '(366 days)' });
}

/**
 * Refuses an option pixhook renamed: "pixhook: `<old>` was renamed: use <replacement>". An old name is
 * never ignored in silence, since the new default would then run instead of what the caller asked for.
 */
export function refuseRenamed(options: object | undefined, renamed: Readonly<Record<string, string>>, within = ''): void {
  if (typeof options !== 'object' || options === null) return;
  for (const [old, replacement] of Object.entries(renamed)) {
    if (Object.hasOwn(options, old) && (options as Record<string, unknown>)[old] !== undefined) {
      throw new PixhookConfigError(`pixhook: \`${within}${old}\` was renamed: use ${replacement}`);
    }
  }
}

/** What was given, said without echoing anything long or secret: numbers as written, other things by type. */
export function describeGiven(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return /^[\w.+-]{1,24}$/.test(value) ? `the string "${value}"` : 'a string';
  return describeType(value);
}

function describeType(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (Array.isArray(value)) return 'an array';
  return /^[aeiou]/.test(typeof value) ? `an ${typeof value}` : `a ${typeof value}`;
}

/**
 * A webhook secret, refused when it cannot be one: not a string, empty, only whitespace or NUL
 * characters (HMAC pads a key with zeros, so "\0" signs like ""), or the text of an unset variable
 * ("undefined", "null"). The message names the option and never the value.
 */
export function checkSecret(name: string, value: unknown): string {
  const problem = secretProblem(value);
  if (problem === undefined) return value as string;
  throw new PixhookConfigError(
    `pixhook: \`${name}\` must be a non-empty string (the webhook secret the gateway signs with), got ${problem}. ` +
      'Is the environment variable that holds it (e.g. PIXHOOK_SECRET) set?',
  );
}

/** One secret or a non-empty list of them (several while rotating), each checked by `checkSecret`. */
export function checkSecrets(name: string, value: unknown): readonly string[] {
  if (typeof value === 'string') return [checkSecret(name, value)];
  if (Array.isArray(value)) {
    if (value.length === 0)
      throw new PixhookConfigError(`pixhook: \`${name}\` must be a non-empty string or a non-empty list of them, got an empty list.`);
    return value.map((secret: unknown, i) => checkSecret(`${name}[${i}]`, secret));
  }
  return [checkSecret(name, value)];
}

const unsetTexts = new Set(['undefined', 'null']);

function secretProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return describeType(value);
  if (value === '') return 'an empty string';
  if (/^[\s\0]*$/.test(value)) return /\0/.test(value) ? 'only NUL or whitespace characters' : 'only whitespace';
  const trimmed = value.trim().toLowerCase();
  if (unsetTexts.has(trimmed)) return 'the text of an unset variable ("undefined" or "null")';
  return undefined;
}

/** The error every refused option gets: "pixhook: `<name>` must be <what>, got <what was given>". */
export function mustBe(name: string, what: string, given: unknown): PixhookConfigError {
  return new PixhookConfigError(`pixhook: \`${name}\` must be ${what}, got ${describeGiven(given)}`);
}

/** One of `allowed` (compared with ===), else "must be "a", "b" or "short"". */
export function checkOneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  if ((allowed as readonly unknown[]).includes(value)) return value as T;
  const quoted = allowed.map((choice) => `"${choice}"`);
  const listed = quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
  throw mustBe(name, listed, value);
}

/** A function, else "must be <what>" (default "a function"). */
export function checkFunction<T extends (...args: never[]) => unknown>(name: string, value: unknown, what = 'a function'): T {
  if (typeof value === 'function') return value as T;
  throw mustBe(name, what, value);
}

/** A non-null object (not an array), else "must be <what>". */
export function checkObject<T extends object>(name: string, value: unknown, what: string): T {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as T;
  throw mustBe(name, what, value);
}

/** A plain SQL identifier (letters, digits, _; not starting with a digit; at most `maxLength`), safe to quote into DDL. */
export function checkIdentifier(name: string, value: unknown, maxLength = 63): string {
  if (typeof value === 'string' && new RegExp(`^[A-Za-z_][A-Za-z0-9_]{0,${maxLength - 1}}$`).test(value)) return value;
  throw mustBe(name, `a plain identifier (letters, digits, _; at most ${maxLength})`, value);
}
