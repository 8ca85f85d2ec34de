/**
 * What a JSON value is, in a word or two, for warnings and errors: `"string"`, `"number"`,
 * `"number (fraction)"`, `"object"`, `"array"`, `"null"`, `"absent"`. Never the value itself, which may be
 * a document number or a key.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'absent';
  if (value === null) return 'null';
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return 'number (fraction)';
    if (!Number.isSafeInteger(value)) return 'number (unsafe integer)';
    return value < 0 ? 'number (negative)' : 'number';
  }
  if (typeof value === 'string') return value === '' ? 'string (empty)' : 'string';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
