import { reasonStatus, type ReasonCode } from './reasons.js';

/**
 * Every stable code a `PixhookError` carries: the receiver's reason codes, plus the codes of setup,
 * stores, the client and the CLI. Log and alert on them; messages may change, codes do not.
 */
export type PixhookErrorCode =
  | ReasonCode
  | 'config_invalid'
  | 'timeout'
  | 'claim_lost'
  | 'redis_unavailable'
  | 'postgres_unavailable'
  | 'api_error'
  | 'network_error'
  | 'response_invalid'
  | 'validation_failed'
  | 'wait_timeout'
  | 'request_invalid'
  | 'usage';

/**
 * The one root of every error pixhook throws or hands to a framework: a stable `code`, and, for the
 * receiver's reasons, the HTTP `status` they map to. The message is plain (no code in it); it teaches
 * the fix and never carries a secret.
 */
export class PixhookError extends Error {
  override name = 'PixhookError';
  readonly code: PixhookErrorCode;
  /** The HTTP status of a receiver reason (500 for other codes); Express's error handler reads `statusCode`. */
  readonly status: number;
  readonly statusCode: number;
  readonly expose = false;

  constructor(code: PixhookErrorCode, message: string, options?: { cause?: unknown; status?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = options?.status ?? (Object.hasOwn(reasonStatus, code) ? reasonStatus[code as ReasonCode] : 500);
    this.statusCode = this.status;
  }
}

/** Thrown at setup time for options that cannot work (no secret, a mode without what it needs). */
export class PixhookConfigError extends PixhookError {
  override name = 'PixhookConfigError';
  constructor(message: string) {
    super('config_invalid', message);
  }
}

/** A call (a store, a queue, a handler) that did not settle within its bound. */
export class PixhookTimeoutError extends PixhookError {
  override name = 'PixhookTimeoutError';
  constructor(message: string) {
    super('timeout', message);
  }
}
