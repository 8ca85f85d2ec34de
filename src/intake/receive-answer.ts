import type { PixEvent, UnknownEvent } from '../events/event-types.js';
import { PixhookError } from '../shared/pixhook-error.js';
import { reasonCodes, reasonMessage, reasonStatus, type ReasonCode } from '../shared/reasons.js';

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

const jsonType = 'application/json; charset=utf-8';

interface FixedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  message?: string;
}

/**
 * The one reason → answer mapping, built once per receiver: status, headers and body of every
 * reason, so a delivery only allocates its own result object. A message of the answer's own (a
 * signature scheme's, an adapter's fix) makes a new body.
 */
export function createAnswers(retryAfterSeconds: number): (reason: ReasonCode | undefined, extra?: AnswerExtra) => ReceiveResult {
  const fixed = new Map<ReasonCode | undefined, FixedAnswer>();
  fixed.set(undefined, { status: 200, headers: { 'content-type': jsonType, 'cache-control': 'no-store' }, body: '{"ok":true}' });
  for (const reason of reasonCodes) {
    const status = reasonStatus[reason];
    const headers: Record<string, string> = { 'content-type': jsonType, 'cache-control': 'no-store' };
    if (status === 503) headers['retry-after'] = String(retryAfterSeconds);
    if (reason === 'method_not_allowed') headers['allow'] = 'POST';
    // An answer sent before an oversized body was read: close rather than drain megabytes.
    if (reason === 'body_too_large') headers['connection'] = 'close';
    if (status < 300) fixed.set(reason, { status, headers, body: JSON.stringify({ ok: true, reason }) });
    else
      fixed.set(reason, {
        status,
        headers,
        message: reasonMessage[reason],
        body: JSON.stringify({ error: reason, message: reasonMessage[reason] }),
      });
  }
  const none: AnswerExtra = {};
  return (reason, extra = none) => {
    const answer = fixed.get(reason)!;
    const result: ReceiveResult = { status: answer.status, headers: answer.headers, body: answer.body };
    if (extra.event !== undefined) result.event = extra.event;
    if (extra.key !== undefined) result.key = extra.key;
    if (extra.hint !== undefined) result.hint = extra.hint;
    if (reason === undefined) return result;
    result.reason = reason;
    if (answer.status < 300) return result;
    const message = extra.message ?? answer.message!;
    result.message = message;
    if (message !== answer.message) result.body = JSON.stringify({ error: reason, message });
    if (reason === 'body_already_parsed') result.error = new PixhookError(reason, message);
    return result;
  };
}
