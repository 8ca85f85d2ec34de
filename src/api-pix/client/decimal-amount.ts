// The standard writes money as decimal strings (`"110.00"`, pattern `\d{1,10}\.\d{2}`); pixhook counts integer
// cents. Both directions work on the digits, never through a float.

const decimalPattern = /^(\d{1,10})\.(\d{2})$/;

/** `"110.00"` → 11000; undefined for anything else (`"1.5"`, `"1,50"`, `"-1.00"`, `"1e3"`, a number). */
export function centsFromDecimal(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = decimalPattern.exec(value);
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number(match[2]);
}

/** 11000 → `"110.00"`; the caller has checked a non-negative safe integer of at most 12 digits. */
export function decimalFromCents(cents: number): string {
  const whole = Math.floor(cents / 100);
  const fraction = cents % 100;
  return `${whole}.${String(fraction).padStart(2, '0')}`;
}

/** The largest amount the pattern can carry: 9 999 999 999.99. */
export const maxAmountInCents = 999_999_999_999;
