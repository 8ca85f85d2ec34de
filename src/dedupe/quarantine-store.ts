/** A verified body pixhook could not read as an event: kept so the merchant can fix the cause and replay it. */
export interface InvalidDelivery {
  reason: 'json_invalid' | 'payload_invalid';
  /** What was wrong (path + what was found), never the secret. */
  message: string;
  /** The verified body, exactly as received. */
  bytes: Uint8Array;
  /** Lower-cased request headers, signature headers included. */
  headers: Record<string, string>;
  /** The parsed JSON when it parsed. */
  json?: unknown;
  /** ISO 8601. */
  receivedAt: string;
}

/** Where verified-but-unreadable deliveries are kept. */
export interface QuarantineStore {
  /** Keeps one copy per body hash (sha256 hex of the bytes) for the store's TTL; returns that id. */
  put(delivery: InvalidDelivery): Promise<string>;
}
