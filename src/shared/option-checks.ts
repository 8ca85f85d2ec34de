import { PixhookConfigError } from './pixhook-error.js';

/** A positive finite number (or zero when `zeroOk`), else a setup error naming the option. */
export function positive(name: string, value: number | undefined, fallback: number, zeroOk = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (!zeroOk && value === 0)) {
    throw new PixhookConfigError(`pixhook: \`${name}\` must be a positive number, got ${String(value)}.`);
  }
  return value;
}
