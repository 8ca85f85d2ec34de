import { describeValue } from './describe-value.js';
import type { EventWarning, JsonObject } from './event-types.js';

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Reads secondary fields: `null` or absent gives `undefined` quietly, a value of the wrong type gives
 * `undefined` and one warning. Callers read the property themselves (`t['fees']`, a named load V8 keeps
 * fast; a shared `source[key]` here measured 2× slower) and pass where it came from, so the path is only
 * built when a warning is recorded. With two source names, the first one present (not null) decides.
 */
export class LenientReader {
  warnings: EventWarning[] | undefined;

  warn(base: string, key: string, value: unknown, message: string): void {
    const warning: EventWarning = { path: base === '' ? key : `${base}.${key}`, found: describeValue(value), message };
    (this.warnings ??= []).push(warning);
  }

  object(value: unknown, base: string, key: string): JsonObject | undefined {
    if (value === undefined || value === null) return undefined;
    if (isJsonObject(value)) return value;
    this.warn(base, key, value, 'expected an object');
    return undefined;
  }

  text(value: unknown, base: string, key: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    this.warn(base, key, value, 'expected a string');
    return undefined;
  }

  /** Integer cents of either sign (net amounts and fees go negative). */
  cents(value: unknown, base: string, key: string): number | undefined {
    if (value === undefined || value === null) return undefined;
    if (Number.isSafeInteger(value)) return value as number;
    this.warn(base, key, value, 'expected integer cents');
    return undefined;
  }

  /** A non-empty string, or a safe integer turned into a string. */
  id(value: unknown, base: string, key: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    const id = asId(value);
    if (id === undefined) this.warn(base, key, value, 'expected a non-empty string or an integer');
    return id;
  }

  textOf(first: unknown, second: unknown, base: string, firstKey: string, secondKey: string): string | undefined {
    return isAbsent(first) ? this.text(second, base, secondKey) : this.text(first, base, firstKey);
  }

  centsOf(first: unknown, second: unknown, base: string, firstKey: string, secondKey: string): number | undefined {
    return isAbsent(first) ? this.cents(second, base, secondKey) : this.cents(first, base, firstKey);
  }
}

export function isAbsent(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

export function asId(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  if (Number.isSafeInteger(value)) return String(value);
  return undefined;
}
