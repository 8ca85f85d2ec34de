/**
 * A PSP's decimal amount (`10.5`, `"10.50"`, `1990` in cents…) as exact integer cents, or undefined when it
 * is not one. The digits are read from the decimal text, never by multiplying a float: `0.29 * 100` is
 * `28.999999999999996`, and `Math.round` on that hides the error only until an amount with more digits.
 * A number arrives as JSON wrote it; `String(n)` gives back the shortest text that reads as the same
 * double, which for any amount with at most two decimals is those digits.
 */
export function decimalToCents(value: unknown): number | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return undefined;
    text = String(value);
  } else if (typeof value === 'string') text = value.trim();
  else return undefined;
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(text);
  if (match === null) return undefined;
  const cents = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return Number.isSafeInteger(cents) ? cents : undefined;
}

/** An amount the PSP already gives in integer cents (Woovi, PagBank, Pagar.me), or undefined. */
export function integerCents(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value === 'string' && /^\d+$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}
