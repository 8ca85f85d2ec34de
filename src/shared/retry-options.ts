import { checkAttempts, checkDelayMs, checkNumber, maxDelayMs } from './option-checks.js';
import { PixhookConfigError } from './pixhook-error.js';

/**
 * Exponential backoff: the wait before run n + 1 is `delayMs × factor^(n − 1)`, capped at `maxDelayMs`.
 * The one backoff shape of every pixhook option that retries.
 */
export interface Backoff {
  /** The wait before the second run, in ms. */
  delayMs?: number;
  /** Each wait is the previous one × factor (1 to 10). */
  factor?: number;
  /** No wait is longer (at most 24 h). */
  maxDelayMs?: number;
}

/**
 * How often something runs and how long it waits in between: `{ attempts, backoff }`, where
 * `backoff` is a `Backoff` or an explicit schedule (`[1000, 5000, 30000]`: the waits before runs 2, 3, 4).
 * Every pixhook option that retries takes this shape, under the name `retry`.
 */
export interface RetryOptions {
  /** Runs in all, the first included (1 to 100). With a schedule, default: the schedule's length + 1. */
  attempts?: number;
  backoff?: Backoff | readonly number[];
}

/** A checked retry policy. */
export interface RetryPolicy {
  readonly attempts: number;
  /** The wait in ms after run `attempt` fails (1-based), before the next one. */
  delayAfter(attempt: number): number;
  /** Every wait of the whole policy, added up: the longest a run of all attempts waits. */
  readonly totalDelayMs: number;
  /** The longest single wait: the cap, or a schedule's longest wait. */
  readonly maxDelayMs: number;
}

/**
 * Checks `value` (named `name`, e.g. `retry` or `background.retry`) against the shape and its bounds,
 * filling what is missing from `defaults`. Throws a `PixhookConfigError` naming the option.
 */
export function resolveRetry(
  name: string,
  value: RetryOptions | undefined,
  defaults: { attempts: number; backoff: Required<Backoff> },
): RetryPolicy {
  if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    throw new PixhookConfigError(
      `pixhook: \`${name}\` must be { attempts, backoff: { delayMs, factor, maxDelayMs } } or { attempts, backoff: [ms, …] }`,
    );
  }
  const backoff = value?.backoff;
  if (Array.isArray(backoff)) return scheduleRetry(name, value?.attempts, backoff as readonly number[]);
  if (backoff !== undefined && (typeof backoff !== 'object' || backoff === null)) {
    throw new PixhookConfigError(`pixhook: \`${name}.backoff\` must be { delayMs, factor, maxDelayMs } or a list of waits in ms`);
  }
  const attempts = checkAttempts(`${name}.attempts`, value?.attempts, defaults.attempts);
  const b = backoff as Backoff | undefined;
  const delayMs = checkDelayMs(`${name}.backoff.delayMs`, b?.delayMs, defaults.backoff.delayMs);
  const factor = checkNumber(`${name}.backoff.factor`, b?.factor ?? defaults.backoff.factor, { min: 1, max: 10, integer: false });
  const cap = checkDelayMs(`${name}.backoff.maxDelayMs`, b?.maxDelayMs, Math.max(defaults.backoff.maxDelayMs, delayMs));
  if (cap < delayMs) {
    throw new PixhookConfigError(
      `pixhook: \`${name}.backoff.maxDelayMs\` must be at least \`${name}.backoff.delayMs\` (${delayMs}), got ${cap}`,
    );
  }
  const delayAfter = (attempt: number): number => Math.min(cap, Math.round(delayMs * factor ** Math.max(0, attempt - 1)));
  let totalDelayMs = 0;
  for (let attempt = 1; attempt < attempts; attempt++) totalDelayMs += delayAfter(attempt);
  return { attempts, delayAfter, totalDelayMs, maxDelayMs: cap };
}

function scheduleRetry(name: string, attemptsGiven: number | undefined, schedule: readonly number[]): RetryPolicy {
  if (schedule.length > 99) throw new PixhookConfigError(`pixhook: \`${name}.backoff\` must list at most 99 waits, got ${schedule.length}`);
  const waits = schedule.map((ms, i) => checkDelayMs(`${name}.backoff[${i}]`, ms));
  const attempts = checkAttempts(`${name}.attempts`, attemptsGiven, waits.length + 1);
  if (attempts - 1 > waits.length && waits.length === 0) {
    throw new PixhookConfigError(`pixhook: \`${name}.backoff\` must list at least one wait when \`${name}.attempts\` is over 1`);
  }
  // Past the end of the schedule, its last wait repeats.
  const delayAfter = (attempt: number): number => waits[Math.min(waits.length - 1, Math.max(0, attempt - 1))] ?? 0;
  let totalDelayMs = 0;
  for (let attempt = 1; attempt < attempts; attempt++) totalDelayMs += delayAfter(attempt);
  return { attempts, delayAfter, totalDelayMs: Math.min(totalDelayMs, maxDelayMs * attempts), maxDelayMs: Math.max(0, ...waits) };
}
