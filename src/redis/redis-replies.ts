// Both clients answer scripts with arrays of strings or buffers (node-redis may give buffers): read them one way.

/** A reply as text: a buffer decoded as UTF-8, null and undefined as ''. */
export function replyText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : String(value);
}

/** A reply as an array; anything else is empty. */
export function replyArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
