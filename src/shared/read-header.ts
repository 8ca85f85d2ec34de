/** Headers as Node, Fetch and most frameworks hand them out. */
export type HeaderSource = { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Reads one header case-insensitively from a Fetch `Headers` or a plain record. */
export function readHeader(headers: HeaderSource, name: string): string | undefined {
  if (typeof headers.get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const lower = name.toLowerCase();
  let value = record[lower];
  if (value === undefined) {
    for (const key of Object.keys(record)) {
      if (key.toLowerCase() === lower) {
        value = record[key];
        break;
      }
    }
  }
  return typeof value === 'string' ? value : value?.join(', ');
}
