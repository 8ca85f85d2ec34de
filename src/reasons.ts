/** Every answer the receiver gives, with its HTTP status. Stable strings: log and alert on them. */
export const reasonStatus = {
  duplicate: 200,
  unknown_event: 200,
  signature_missing: 401,
  signature_malformed: 401,
  signature_mismatch: 401,
  signature_expired: 401,
  json_invalid: 400,
  payload_invalid: 400,
  body_unreadable: 400,
  method_not_allowed: 405,
  body_too_large: 413,
  body_already_parsed: 500,
  handler_failed: 500,
  handler_timeout: 503,
  in_flight: 503,
  queue_full: 503,
  store_unavailable: 503,
  enqueue_failed: 503,
  internal_error: 500,
} as const;

export type ReasonCode = keyof typeof reasonStatus;

/** Reasons an adapter may report about the request before the core sees the bytes. */
export type BodyFailureReason = 'body_too_large' | 'body_already_parsed' | 'body_unreadable';

export const reasonCodes = Object.keys(reasonStatus) as ReasonCode[];

/** Default messages; none of them ever carries a handler's error or a secret. */
export const reasonMessage: Record<ReasonCode, string> = {
  duplicate: 'Already processed.',
  unknown_event: 'Event name not known to this receiver; acknowledged.',
  signature_missing: 'The X-Signature header is missing.',
  signature_malformed: 'The X-Signature header must be "sha256=" followed by 64 hexadecimal characters.',
  signature_mismatch: 'The signature does not match the payload.',
  signature_expired: 'The signature timestamp is outside the accepted tolerance.',
  json_invalid: 'The body is not valid UTF-8 JSON.',
  payload_invalid: 'The body is not a known event shape.',
  body_unreadable: 'The request body could not be read.',
  method_not_allowed: 'Webhook deliveries are POST requests.',
  body_too_large: 'The body is larger than this receiver accepts.',
  body_already_parsed:
    'The request body was already consumed by a body parser before pixhook could read the raw bytes.',
  handler_failed: 'The event could not be processed now; a retry will process it again.',
  handler_timeout: 'The event is still being processed; retry later.',
  in_flight: 'The same event is being processed by an earlier delivery; retry later.',
  queue_full: 'Too many events are waiting to be processed; retry later.',
  store_unavailable: 'The dedupe store is unavailable; retry later.',
  enqueue_failed: 'The event could not be queued for processing; retry later.',
  internal_error: 'The receiver failed unexpectedly; retry later.',
};
