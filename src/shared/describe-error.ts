/**
 * One line describing anything that was thrown. Never throws itself, whatever it is given: a
 * null-prototype object, a Proxy, an Error whose `message` getter throws.
 */
export function describeError(error: unknown): string {
  try {
    if (error instanceof Error) return `${read(() => error.name) ?? 'Error'}: ${read(() => error.message) ?? '(unreadable message)'}`;
    if (typeof error === 'string') return error;
    if (typeof error !== 'object' && typeof error !== 'function') return String(error);
    if (error === null) return 'null';
    const json = read(() => JSON.stringify(error));
    if (json !== undefined && json !== '{}') return json.length > 500 ? `${json.slice(0, 500)}…` : json;
    return Object.prototype.toString.call(error);
  } catch {
    return '(an error that cannot be described)';
  }
}

function read(get: () => unknown): string | undefined {
  try {
    const value = get();
    return typeof value === 'string' ? value : value === undefined ? undefined : String(value);
  } catch {
    return undefined;
  }
}
