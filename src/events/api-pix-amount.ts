/** `\d{1,10}\.\d{2}`: the standard's only amount shape. No sign, no exponent, no comma, no number type. */
const amountPattern = /^(\d{1,10})\.(\d{2})$/;

/**
 * The standard's decimal string to integer cents, exactly: the two parts are read as integers, never
 * through a float (`"0.29"` is 29, not 28.999…). Anything else is `undefined`: the caller says why.
 * 10 integer digits × 100 stays below 2^53.
 */
export function apiPixCents(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = amountPattern.exec(value);
  if (match === null) return undefined;
  return Number(match[1]) * 100 + Number(match[2]);
}
