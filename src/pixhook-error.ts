import { reasonMessage, reasonStatus, type ReasonCode } from './reasons.js';

/**
 * The one error class pixhook throws or hands to a framework: a stable `code`, the HTTP `status` it
 * maps to, and a message that teaches the fix. Never carries a secret or a payload.
 */
export class PixhookError extends Error {
  override readonly name = 'PixhookError';
  readonly code: ReasonCode;
  readonly status: number;
  /** Express's error handler reads these. */
  readonly statusCode: number;
  readonly expose = false;

  constructor(code: ReasonCode, message: string = reasonMessage[code], options?: { cause?: unknown }) {
    super(`${code}: ${message}`, options);
    this.code = code;
    this.status = reasonStatus[code];
    this.statusCode = this.status;
  }
}

/** Thrown at setup time for options that cannot work (no secret, a mode without what it needs). */
export class PixhookConfigError extends Error {
  override readonly name = 'PixhookConfigError';
}
