import type { PixEvent, UnknownEvent } from '../events/event-types.js';
import { PixhookError } from '../shared/pixhook-error.js';
import { reasonMessage, reasonStatus, type ReasonCode } from '../shared/reasons.js';

/** What to answer, identical for every adapter; `reason`, `event`, `hint` are for logs. */
export interface ReceiveResult {
  status: number;
  headers: Record<string, string>;
  body: string;
  reason?: ReasonCode;
  /** The public message (also in `body`). */
  message?: string;
  /** Private diagnosis for the merchant's logs: never sent. */
  hint?: string;
  event?: PixEvent | UnknownEvent;
  key?: string;
  /**
   * Set when the server is misconfigured (`body_already_parsed`): adapters write the JSON answer as
   * always and also hand this to the framework's own error logging.
   */
  error?: PixhookError;
}

export interface AnswerExtra {
  event?: PixEvent | UnknownEvent;
  key?: string;
  message?: string;
  hint?: string;
}

const okBody = '{"ok":true}';
const jsonType = 'application/json; charset=utf-8';

/** The one reason → answer mapping. Bodies are built once per reason where they never vary. */
export function buildAnswer(reason: ReasonCode | undefined, retryAfterSeconds: number, extra: AnswerExtra = {}): ReceiveResult {
  const result: ReceiveResult = { status: 200, headers: { 'content-type': jsonType, 'cache-control': 'no-store' }, body: okBody };
  if (extra.event !== undefined) result.event = extra.event;
  if (extra.key !== undefined) result.key = extra.key;
  if (extra.hint !== undefined) result.hint = extra.hint;
  if (reason === undefined) return result;
  const status = reasonStatus[reason];
  result.status = status;
  result.reason = reason;
  if (status === 503) result.headers['retry-after'] = String(retryAfterSeconds);
  if (reason === 'method_not_allowed') result.headers['allow'] = 'POST';
  // An answer sent before an oversized body was read: close rather than drain megabytes.
  if (reason === 'body_too_large') result.headers['connection'] = 'close';
  if (status < 300) {
    result.body = reason === 'duplicate' ? duplicateBody : reason === 'unknown_event' ? unknownBody : JSON.stringify({ ok: true, reason });
    return result;
  }
  const message = extra.message ?? reasonMessage[reason];
  result.message = message;
  if (reason === 'body_already_parsed') result.error = new PixhookError(reason, message);
  result.body = JSON.stringify({ error: reason, message });
  return result;
}

const duplicateBody = JSON.stringify({ ok: true, reason: 'duplicate' });
const unknownBody = JSON.stringify({ ok: true, reason: 'unknown_event' });
