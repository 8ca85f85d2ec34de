/** A verified delivery pixhook could not read as an event: kept so the merchant can fix the cause and replay it. */
export interface InvalidDelivery {
  reason: 'json_invalid' | 'payload_invalid';
  /** What was wrong (the path and what was found); never a secret. */
  message: string;
  /** The verified body, exactly as received. */
  bytes: Uint8Array;
  /** The request's headers, lower-cased, signature headers included. */
  headers: Record<string, string>;
  /** The parsed JSON, when the body was JSON. */
  json?: unknown;
  /** ISO 8601. */
  receivedAt: string;
}

/** Keeps invalid deliveries for a replay (see `pixhook/redis`'s `redisQuarantine`). */
export interface QuarantineStore {
  /** Keeps one copy per body (by hash) for the store's retention; returns its id. */
  put(delivery: InvalidDelivery): Promise<string>;
}
