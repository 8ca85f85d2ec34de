import { escapeControls } from './escape-controls.js';

const maxMessageLength = 500;

/**
 * One line describing anything that was thrown: its type, its `code` and its `message`, and the
 * same for its `cause` — never the value serialized whole (a thrown object may hold a secret).
 * Control characters are escaped, so a message from the network cannot forge or colour a line.
 * Never throws itself, whatever it is given: a null-prototype object, a Proxy that throws on every
 * trap, an Error whose `message` getter throws.
 */
export function describeError(error: unknown): string {
  try {
    return escapeControls(describe(error, true));
  } catch {
    return '(an error that cannot be described)';
  }
}

function describe(error: unknown, withCause: boolean): string {
  if (typeof error === 'string') return clip(error);
  if (error === null || error === undefined) return String(error);
  if (typeof error !== 'object' && typeof error !== 'function') return `${typeof error}: ${clip(read(() => String(error)) ?? '?')}`;
  const type = typeOf(error);
  const message = read(() => (error as { message?: unknown }).message);
  const code = read(() => (error as { code?: unknown }).code, true);
  let line = message ? `${type}: ${clip(message)}` : type;
  if (code !== undefined && !(message ?? '').includes(code)) line += ` (code ${clip(code)})`;
  if (withCause) {
    const cause = readValue(() => (error as { cause?: unknown }).cause);
    if (cause !== undefined && cause !== error) line += ` (cause: ${describe(cause, false)})`;
  }
  return line;
}

/** An Error's own `name` (`TypeError`, `PixhookError`), else the constructor's name, else `object`. */
function typeOf(error: object): string {
  const name = read(() => (error as { name?: unknown }).name);
  if (name !== undefined && /^\w{1,64}$/.test(name) && readValue(() => error instanceof Error)) return name;
  const constructorName = read(() => (Object.getPrototypeOf(error) as { constructor?: { name?: unknown } } | null)?.constructor?.name);
  return constructorName !== undefined && /^\w{1,64}$/.test(constructorName) ? constructorName : typeof error;
}

/** A string (or, for codes, a number) read through a getter that may throw; anything else is left out. */
function read(get: () => unknown, numbers = false): string | undefined {
  const value = readValue(get);
  if (typeof value === 'string') return value;
  return numbers && typeof value === 'number' ? String(value) : undefined;
}

function readValue(get: () => unknown): unknown {
  try {
    return get();
  } catch {
    return undefined;
  }
}

function clip(text: string): string {
  return text.length > maxMessageLength ? `${text.slice(0, maxMessageLength)}…` : text;
}
