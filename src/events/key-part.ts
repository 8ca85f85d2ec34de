// One part of a dedupe key: the gateway family's keys and the standard API Pix's are built from the same parts.

/** Percent-escapes the two characters that could move a part boundary. */
export function escapePart(part: string): string {
  if (part.indexOf(':') === -1 && part.indexOf('%') === -1) return part;
  return part.replace(/%/g, '%25').replace(/:/g, '%3A');
}
