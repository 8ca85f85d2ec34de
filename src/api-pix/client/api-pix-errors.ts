import {
  PixApiError,
  PixBadRequestError,
  PixNotFoundError,
  PixRateLimitedError,
  PixServerError,
  PixUnauthorizedError,
  type PixApiErrorInit,
} from '../../client/client-errors.js';

/** One `violacoes` item of a `Problema`: which property broke which rule. */
export interface ApiPixViolation {
  razao?: string;
  propriedade?: string;
  valor?: string;
}

/** The standard's RFC 7807 error body (`Problema`), as the PSP sent it (fields it left out are absent). */
export interface ApiPixProblem {
  /** e.g. `https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida`. */
  type: string;
  title: string;
  status: number;
  detail?: string;
  correlationId?: string;
  violacoes: ApiPixViolation[];
}

// Each class extends the gateway client's class for the same status, so code that already tells a 429 or a 404
// apart (the reconciler, `confirm`) handles the standard's errors the same way; `problem` carries the body.

/** 400: the request breaks the schema or a rule (`CobOperacaoInvalida`, `PixDevolucaoInvalida`, …). */
export class ApiPixBadRequestError extends PixBadRequestError {
  override name = 'ApiPixBadRequestError';
  constructor(
    init: PixApiErrorInit,
    readonly problem: ApiPixProblem,
  ) {
    super(init);
  }
}

/** 401: the OAuth2 credentials (or the token, after one renewal) were refused. */
export class ApiPixUnauthorizedError extends PixUnauthorizedError {
  override name = 'ApiPixUnauthorizedError';
  constructor(
    init: PixApiErrorInit,
    readonly problem: ApiPixProblem,
  ) {
    super(init);
  }
}

/** 403 `AcessoNegado`: authenticated, but not allowed (a scope missing, a key of another account). */
export class ApiPixForbiddenError extends PixApiError {
  override name = 'ApiPixForbiddenError';
  constructor(
    init: PixApiErrorInit,
    readonly problem: ApiPixProblem,
  ) {
    super(init);
  }
}

/** 404 `NaoEncontrado`: no such charge, Pix, refund or webhook. */
export class ApiPixNotFoundError extends PixNotFoundError {
  override name = 'ApiPixNotFoundError';
  constructor(
    init: PixApiErrorInit,
    readonly problem: ApiPixProblem,
  ) {
    super(init);
  }
}

/** 429, after the retries the call was allowed (or a spent read budget); `retryAfter` in seconds. */
export class ApiPixRateLimitedError extends PixRateLimitedError {
  override name = 'ApiPixRateLimitedError';
  constructor(
    init: PixApiErrorInit & { retryAfter?: number | undefined },
    readonly problem: ApiPixProblem,
  ) {
    super(init);
  }
}

/** 5xx (`ServicoIndisponivel`, …), after the retries the call was allowed. */
export class ApiPixServerError extends PixServerError {
  override name = 'ApiPixServerError';
  constructor(
    init: PixApiErrorInit,
    readonly problem: ApiPixProblem,
  ) {
    super(init);
  }
}

/** Any other status with a `Problema` (409, 422, …). */
export class ApiPixProblemError extends PixApiError {
  override name = 'ApiPixProblemError';
  constructor(
    init: PixApiErrorInit,
    readonly problem: ApiPixProblem,
  ) {
    super(init);
  }
}

export type ApiPixError =
  | ApiPixBadRequestError
  | ApiPixUnauthorizedError
  | ApiPixForbiddenError
  | ApiPixNotFoundError
  | ApiPixRateLimitedError
  | ApiPixServerError
  | ApiPixProblemError;

const text = (value: unknown, max = 500): string | undefined => (typeof value === 'string' ? value.slice(0, max) : undefined);

/**
 * Reads a `Problema` tolerantly: a PSP that answers the OAuth2 way (`error`, `error_description`) or with no body
 * still gets a problem whose `status` is the HTTP status and whose `title` says what is known.
 */
function problemFrom(status: number, body: unknown): ApiPixProblem {
  const record = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const violations = Array.isArray(record['violacoes']) ? record['violacoes'] : [];
  const detail = text(record['detail']) ?? text(record['error_description']);
  const correlationId = text(record['correlationId'], 100);
  return {
    type: text(record['type']) ?? 'about:blank',
    title: text(record['title']) ?? text(record['error']) ?? `HTTP ${status}`,
    status,
    ...(detail !== undefined && { detail }),
    ...(correlationId !== undefined && { correlationId }),
    violacoes: violations
      .filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null)
      .map((v) => {
        const razao = text(v['razao']);
        const propriedade = text(v['propriedade'], 200);
        const valor = text(v['valor'], 200);
        return {
          ...(razao !== undefined && { razao }),
          ...(propriedade !== undefined && { propriedade }),
          ...(valor !== undefined && { valor }),
        };
      }),
  };
}

/** The typed error for a non-2xx answer; `apiCode` is the last segment of the problem's `type` (`NaoEncontrado`). */
export function apiPixErrorFrom(options: {
  status: number;
  body: unknown;
  operation: string;
  retryAfterSeconds?: number | undefined;
}): ApiPixError {
  const { status, operation } = options;
  const problem = problemFrom(status, options.body);
  const typeName = problem.type === 'about:blank' ? undefined : problem.type.split('/').filter(Boolean).pop();
  const code = typeName ?? (status >= 500 ? 'SERVER_ERROR' : `HTTP_${status}`);
  const first = problem.violacoes[0];
  const message = [problem.title, problem.detail, first?.propriedade && `${first.propriedade}: ${first.razao ?? 'invalid'}`]
    .filter((part): part is string => typeof part === 'string' && part !== '')
    .join(' — ');
  const init: PixApiErrorInit = { status, code, message, operation, details: { problem } };
  if (status === 400) return new ApiPixBadRequestError(init, problem);
  if (status === 401) return new ApiPixUnauthorizedError(init, problem);
  if (status === 403) return new ApiPixForbiddenError(init, problem);
  if (status === 404) return new ApiPixNotFoundError(init, problem);
  if (status === 429) return new ApiPixRateLimitedError({ ...init, retryAfter: options.retryAfterSeconds }, problem);
  if (status >= 500) return new ApiPixServerError(init, problem);
  return new ApiPixProblemError(init, problem);
}
