import type { IncomingMessage } from 'node:http';
import type { RateLimitedRoute, ResolvedEmulatorOptions } from './emulator-options.js';
import type { createGatewayState } from './gateway-state.js';
import type { createGatewayTokens } from './gateway-tokens.js';
import { RequestError, headerValue, parseJsonBody } from './http-io.js';

type Auth = 'basic' | 'bearer' | 'none';
interface RouteContext {
  params: string[];
  query: URLSearchParams;
  body: Buffer;
  headers: IncomingMessage['headers'];
}
interface RouteResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}
/** One route of the emulated gateway: its parameters are the pattern's groups, URL-decoded. */
export interface Route {
  method: string;
  pattern: RegExp;
  auth: Auth;
  limit?: RateLimitedRoute;
  handle: (ctx: RouteContext) => RouteResult | Promise<RouteResult>;
}

/** The gateway's API (interface document): authentication, charges, transfers, the company, transactions, webhooks. */
export function gatewayApiRoutes(
  config: Pick<ResolvedEmulatorOptions, 'variant' | 'tokenTtlMs'>,
  state: ReturnType<typeof createGatewayState>,
  tokens: ReturnType<typeof createGatewayTokens>,
): Route[] {
  return [
    {
      method: 'POST',
      pattern: /^\/api\/auth$/,
      auth: 'none',
      limit: 'auth',
      handle: ({ body, headers }) => {
        if (body.length > 0) throw new RequestError(400, 'INVALID_REQUEST', 'The authentication operation accepts no body.');
        tokens.basicAuth(headers);
        const token = tokens.issue();
        return { status: 200, body: { success: true, token, tokenType: 'Bearer', expiresIn: config.tokenTtlMs } };
      },
    },
    {
      method: 'POST',
      pattern: /^\/api\/v1\/pix\/in\/qrcode$/,
      auth: 'bearer',
      limit: 'createCharge',
      handle: async ({ body }) => ({ status: config.variant === 'a' ? 201 : 200, body: await state.createCharge(parseJsonBody(body)) }),
    },
    {
      method: 'POST',
      pattern: /^\/api\/v1\/pix\/out\/pixkey$/,
      auth: 'bearer',
      limit: 'sendTransfer',
      handle: ({ body, headers }) => {
        const key = headerValue(headers['x-idempotency-key']) ?? headerValue(headers['idempotency-key']);
        const result = state.sendTransfer(parseJsonBody(body), key);
        const replayed: Record<string, string> = result.replayed ? { 'Idempotent-Replayed': 'true' } : {};
        return { status: 200, body: result.body, headers: replayed };
      },
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/company$/,
      auth: 'bearer',
      limit: 'readCompany',
      handle: () => ({ status: 200, body: state.company() }),
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/transactions\/([^/]+)$/,
      auth: 'bearer',
      limit: 'readTransaction',
      handle: ({ params }) => ({ status: 200, body: state.readTransaction(params[0] as string) }),
    },
    {
      method: 'POST',
      pattern: /^\/api\/v1\/webhook$/,
      auth: 'bearer',
      limit: 'registerWebhook',
      handle: ({ body }) => ({ status: 201, body: state.registerWebhook(parseJsonBody(body)) }),
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/webhook$/,
      auth: 'bearer',
      limit: 'listWebhooks',
      handle: () => ({ status: 200, body: state.listWebhooks() }),
    },
    {
      method: 'GET',
      pattern: /^\/api\/v1\/webhook\/([^/]+)$/,
      auth: 'bearer',
      limit: 'listWebhooks',
      handle: ({ params }) => ({ status: 200, body: state.readWebhook(params[0] as string) }),
    },
    {
      method: 'DELETE',
      pattern: /^\/api\/v1\/webhook\/([^/]+)$/,
      auth: 'bearer',
      limit: 'deleteWebhook',
      handle: ({ params }) => ({ status: 200, body: state.deleteWebhook(params[0] as string) }),
    },
  ];
}
