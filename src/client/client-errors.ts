import type { z } from 'zod';
import { PixhookError } from '../index.js';

export interface PixApiErrorInit {
  status: number;
  code: string;
  message: string;
  details?: Record<string, unknown>;
  /** `METHOD /path` of the failed call (never a query string, header or body). */
  operation?: string;
}

/**
 * An error answered by the gateway: its HTTP `status`, the gateway's own `apiCode`, message and
 * details. `code` is pixhook's stable `api_error`, like every `PixhookError`.
 */
export class PixApiError extends PixhookError {
  override name: string = 'PixApiError';
  /** The gateway's error code, e.g. `INVALID_REQUEST`, `RATE_LIMITED`. */
  readonly apiCode: string;
  readonly details: Record<string, unknown>;
  readonly operation: string | undefined;

  constructor(init: PixApiErrorInit) {
    super(
      'api_error',
      init.operation ? `${init.operation} → ${init.status} ${init.code}: ${init.message}` : `${init.status} ${init.code}: ${init.message}`,
      {
        status: init.status,
      },
    );
    this.apiCode = init.code;
    this.details = init.details ?? {};
    this.operation = init.operation;
  }
}

/** 400 `INVALID_REQUEST`: missing field, wrong CPF/CNPJ, … */
export class PixBadRequestError extends PixApiError {
  override name = 'PixBadRequestError';
}

/** 401 `UNAUTHORIZED`: bad credentials, or a token still refused after one refresh. */
export class PixUnauthorizedError extends PixApiError {
  override name = 'PixUnauthorizedError';
}

/** 404: no such webhook or transaction. */
export class PixNotFoundError extends PixApiError {
  override name = 'PixNotFoundError';
}

/** 422: a business rule was violated (amount outside limits, a state that does not allow it, …). */
export class PixBusinessRuleError extends PixApiError {
  override name = 'PixBusinessRuleError';
}

/** 429 `RATE_LIMITED` / `RATE_LIMIT_EXCEEDED`, after the retries the call was allowed. */
export class PixRateLimitedError extends PixApiError {
  override name = 'PixRateLimitedError';
  /** Seconds to wait, from `Retry-After` or `details.retryAfter`, when the gateway said. */
  readonly retryAfter: number | undefined;

  constructor(init: PixApiErrorInit & { retryAfter?: number | undefined }) {
    super(init);
    this.retryAfter = init.retryAfter;
  }
}

/** 5xx. */
export class PixServerError extends PixApiError {
  override name = 'PixServerError';
}

/** The request never got an answer (connection refused or dropped) after the retries allowed. */
export class PixNetworkError extends PixhookError {
  override name = 'PixNetworkError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('network_error', message, options);
  }
}

/** The gateway answered 2xx with a body that is not the documented shape. */
export class PixResponseError extends PixhookError {
  override name = 'PixResponseError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('response_invalid', message, options);
  }
}

/** `waitForTransactionStatus` gave up. */
export class PixWaitTimeoutError extends PixhookError {
  override name = 'PixWaitTimeoutError';
  readonly lastStatus: string | undefined;

  constructor(message: string, lastStatus: string | undefined) {
    super('wait_timeout', message);
    this.lastStatus = lastStatus;
  }
}

export interface PixValidationIssue {
  /** Dotted path of the field, e.g. `customer.document`. */
  path: string;
  message: string;
}

/** Bad input refused before any request left; `path` names the first bad field. */
export class PixValidationError extends PixhookError {
  override name = 'PixValidationError';
  readonly path: string;
  readonly issues: readonly PixValidationIssue[];

  constructor(operation: string, issues: readonly PixValidationIssue[]) {
    const first = issues[0] ?? { path: '(root)', message: 'invalid input' };
    super('validation_failed', `${operation}: ${first.path}: ${first.message}`);
    this.path = first.path;
    this.issues = issues;
  }
}

export function validationErrorFrom(operation: string, error: z.ZodError): PixValidationError {
  return new PixValidationError(
    operation,
    error.issues.map((issue) => ({
      path: issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)',
      message: issue.message,
    })),
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const defaultCodes: Record<number, string> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHORIZED',
  404: 'NOT_FOUND',
  422: 'BUSINESS_RULE_VIOLATION',
  429: 'RATE_LIMITED',
};

/** Reads both documented error bodies: flat `{error, message, details}` and nested `{success:false, error:{code,…}}`. */
export function parseErrorBody(status: number, body: unknown): { code: string; message: string; details: Record<string, unknown> } {
  const fallbackCode = defaultCodes[status] ?? (status >= 500 ? 'SERVER_ERROR' : `HTTP_${status}`);
  if (!isRecord(body)) return { code: fallbackCode, message: `HTTP ${status}`, details: {} };
  const nested = isRecord(body['error']) ? body['error'] : undefined;
  const source = nested ?? body;
  const code = nested
    ? typeof nested['code'] === 'string'
      ? nested['code']
      : fallbackCode
    : typeof body['error'] === 'string'
      ? body['error']
      : typeof body['code'] === 'string'
        ? body['code']
        : fallbackCode;
  const message = typeof source['message'] === 'string' ? source['message'] : `HTTP ${status}`;
  const details = isRecord(source['details']) ? source['details'] : {};
  return { code, message, details };
}

/** The typed error for a non-2xx answer. */
export function apiErrorFrom(options: {
  status: number;
  body: unknown;
  operation: string;
  retryAfterSeconds?: number | undefined;
}): PixApiError {
  const { status, operation } = options;
  const init = { status, operation, ...parseErrorBody(status, options.body) };
  switch (true) {
    case status === 400:
      return new PixBadRequestError(init);
    case status === 401:
      return new PixUnauthorizedError(init);
    case status === 404:
      return new PixNotFoundError(init);
    case status === 422:
      return new PixBusinessRuleError(init);
    case status === 429: {
      const fromDetails = init.details['retryAfter'];
      const retryAfter = options.retryAfterSeconds ?? (typeof fromDetails === 'number' ? fromDetails : undefined);
      return new PixRateLimitedError({ ...init, retryAfter });
    }
    case status >= 500:
      return new PixServerError(init);
    default:
      return new PixApiError(init);
  }
}
