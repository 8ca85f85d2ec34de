/**
 * Every answer the receiver gives: its HTTP status, the part of the pipeline that gives it, and the
 * default message. Stable strings: log and alert on them. Every list of reasons is derived from here.
 */
const reasonTable = {
  duplicate: [200, 'processing', 'Already processed.'],
  held: [200, 'processing', 'The event is recorded and held for review by the payment book.'],
  unknown_event: [200, 'processing', 'Event name not known to this receiver; acknowledged.'],
  signature_missing: [401, 'signature', 'The X-Signature header is missing.'],
  signature_malformed: [401, 'signature', 'The X-Signature header must be "sha256=" followed by 64 hexadecimal characters.'],
  signature_mismatch: [401, 'signature', 'The signature does not match the payload.'],
  signature_expired: [401, 'signature', 'The signature timestamp is outside the accepted tolerance.'],
  client_certificate_required: [401, 'signature', 'A client certificate is required (mTLS).'],
  client_certificate_rejected: [401, 'signature', 'The client certificate is not accepted.'],
  url_secret_mismatch: [401, 'signature', 'The URL secret is missing or does not match.'],
  proxy_secret_mismatch: [401, 'signature', "The proxy's secret header is missing or does not match."],
  address_not_allowed: [403, 'signature', 'Calls are not accepted from this address.'],
  json_invalid: [400, 'payload', 'The body is not valid UTF-8 JSON.'],
  payload_invalid: [400, 'payload', 'The body is not a known event shape.'],
  confirmation_not_journaled: [
    422,
    'payload',
    'The journaled delivery holds only an id, and its confirmed state was not journaled; it cannot be replayed (reconcile the charge).',
  ],
  body_unreadable: [400, 'body', 'The request body could not be read.'],
  method_not_allowed: [405, 'request', 'Webhook deliveries are POST requests.'],
  body_too_large: [413, 'body', 'The body is larger than this receiver accepts.'],
  body_already_parsed: [500, 'body', 'The request body was already consumed by a body parser before pixhook could read the raw bytes.'],
  handler_failed: [500, 'processing', 'The event could not be processed now; a retry will process it again.'],
  handler_timeout: [503, 'processing', 'The event is still being processed; retry later.'],
  in_flight: [503, 'processing', 'The same event is being processed by an earlier delivery; retry later.'],
  resource_busy: [503, 'processing', 'Another event of the same charge or transfer is being processed; retry later.'],
  queue_full: [503, 'processing', 'Too many events are waiting to be processed; retry later.'],
  store_unavailable: [503, 'processing', 'The dedupe store is unavailable; retry later.'],
  gateway_unavailable: [503, 'processing', 'The event cannot be confirmed with the gateway now; retry later.'],
  enqueue_failed: [503, 'processing', 'The event could not be queued for processing; retry later.'],
  internal_error: [500, 'processing', 'The receiver failed unexpectedly; retry later.'],
} as const satisfies Record<string, readonly [number, ReasonGroup, string]>;

/** Where in the pipeline a reason is decided. */
type ReasonGroup = 'request' | 'body' | 'signature' | 'payload' | 'processing';

export type ReasonCode = keyof typeof reasonTable;
type ReasonsOf<G extends ReasonGroup> = { [R in ReasonCode]: (typeof reasonTable)[R][1] extends G ? R : never }[ReasonCode];

/** Reasons an adapter may report about the request before the core sees the bytes. */
export type BodyFailureReason = ReasonsOf<'body'>;
/** Reasons processing gives (the event was verified and read). */
export type ProcessingReason = ReasonsOf<'processing'>;

export const reasonCodes = Object.keys(reasonTable) as ReasonCode[];

export const reasonStatus = Object.fromEntries(reasonCodes.map((r) => [r, reasonTable[r][0]])) as {
  readonly [R in ReasonCode]: (typeof reasonTable)[R][0];
};

/** Default messages; none of them ever carries a handler's error or a secret. */
export const reasonMessage = Object.fromEntries(reasonCodes.map((r) => [r, reasonTable[r][2]])) as Readonly<Record<ReasonCode, string>>;

export function reasonGroup(reason: ReasonCode): ReasonGroup {
  return reasonTable[reason][1];
}

export function isBodyFailureReason(reason: unknown): reason is BodyFailureReason {
  return typeof reason === 'string' && Object.hasOwn(reasonTable, reason) && reasonTable[reason as ReasonCode][1] === 'body';
}
