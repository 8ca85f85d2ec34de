import { describeValue } from './describe-value.js';
import type { EventWarning, JsonObject } from './event-types.js';

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads secondary fields: `null` or absent gives `undefined` quietly, a value of the wrong type gives
 * `undefined` and one warning. Paths are only built when a warning is recorded (this runs on every delivery).
 * With several source names, the first one present (not null) decides.
 */
export class LenientReader {
  warnings: EventWarning[] | undefined;

  warn(base: string, key: string, value: unknown, message: string): void {
    const warning: EventWarning = { path: base === '' ? key : `${base}.${key}`, found: describeValue(value), message };
    (this.warnings ??= []).push(warning);
  }

  object(source: JsonObject, key: string, base: string): JsonObject | undefined {
    const value = source[key];
    if (value === undefined || value === null) return undefined;
    if (isJsonObject(value)) return value;
    this.warn(base, key, value, 'expected an object');
    return undefined;
  }

  text(source: JsonObject, key: string, base: string): string | undefined {
    const value = source[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    this.warn(base, key, value, 'expected a string');
    return undefined;
  }

  /** Integer cents of either sign (net amounts and fees go negative). */
  cents(source: JsonObject, key: string, base: string): number | undefined {
    const value = source[key];
    if (value === undefined || value === null) return undefined;
    if (Number.isSafeInteger(value)) return value as number;
    this.warn(base, key, value, 'expected integer cents');
    return undefined;
  }

  /** A non-empty string, or a safe integer turned into a string. */
  id(source: JsonObject, key: string, base: string): string | undefined {
    const value = source[key];
    if (value === undefined || value === null) return undefined;
    const id = asId(value);
    if (id === undefined) this.warn(base, key, value, 'expected a non-empty string or an integer');
    return id;
  }

  textOf(source: JsonObject, keys: readonly [string, string], base: string): string | undefined {
    return this.text(source, presentKey(source, keys), base);
  }

  centsOf(source: JsonObject, keys: readonly [string, string], base: string): number | undefined {
    return this.cents(source, presentKey(source, keys), base);
  }
}

/** The first of two source names whose value is present and not null (else the first, which reads as absent). */
export function presentKey(source: JsonObject, keys: readonly [string, string]): string {
  const first = source[keys[0]];
  return first === undefined || first === null ? keys[1] : keys[0];
}

export function asId(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (Number.isSafeInteger(value)) return String(value);
  return undefined;
}
