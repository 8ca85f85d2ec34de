import { describeError } from '../shared/describe-error.js';
import { PixhookError } from '../shared/pixhook-error.js';
import { isBodyFailureReason, type BodyFailureReason } from '../shared/reasons.js';
import { parsedBodyHint } from '../signature/verify-signature.js';

/** The raw body as the adapter has it, or a reader the core calls (with the byte limit) after the method check. */
export type BodySource = Uint8Array | ArrayBuffer | string | null | undefined | ((limit: number) => Promise<Uint8Array>);

export type BodyRead = { ok: true; bytes: Uint8Array } | { ok: false; reason: BodyFailureReason; hint?: string; message?: string };

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Bytes already in hand: no await (most adapters pass them, and every await is a tick). */
export function takeBody(source: Exclude<BodySource, (limit: number) => Promise<Uint8Array>>, limit: number): BodyRead {
  if (source instanceof Uint8Array) return withinLimit(source, limit);
  if (source instanceof ArrayBuffer) return withinLimit(new Uint8Array(source), limit);
  if (typeof source === 'string') return withinLimit(encoder.encode(source), limit);
  if (source === null || source === undefined) return withinLimit(new Uint8Array(0), limit);
  return { ok: false, reason: 'body_already_parsed', hint: parsedBodyHint };
}

/**
 * Runs an adapter's reader. A `PixhookError` with a body reason carries the adapter's own message
 * (its framework's fix), passed through as the answer's message.
 */
export async function readBody(reader: (limit: number) => Promise<Uint8Array>, limit: number): Promise<BodyRead> {
  let bytes: Uint8Array;
  try {
    bytes = await reader(limit);
  } catch (error) {
    if (error instanceof PixhookError && isBodyFailureReason(error.code)) {
      const read: BodyRead = { ok: false, reason: error.code, message: error.message };
      if (error.cause !== undefined) read.hint = describeError(error.cause);
      return read;
    }
    return { ok: false, reason: 'body_unreadable', hint: describeError(error) };
  }
  return withinLimit(bytes, limit);
}

function withinLimit(bytes: Uint8Array, limit: number): BodyRead {
  return bytes.byteLength > limit ? { ok: false, reason: 'body_too_large' } : { ok: true, bytes };
}

export type ParsedJson = { ok: true; value: unknown; text: string } | { ok: false; message: string };

/** Decodes UTF-8 strictly and parses JSON; the signature was checked over these same bytes. */
export function parseJson(bytes: Uint8Array): ParsedJson {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { ok: false, message: 'the body is not valid UTF-8' };
  }
  try {
    return { ok: true, value: JSON.parse(text), text };
  } catch (error) {
    return { ok: false, message: error instanceof SyntaxError ? error.message : 'the body is not JSON' };
  }
}
