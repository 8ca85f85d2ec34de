import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError } from '../shared/describe-error.js';
import { checkControlRequest } from './control-guard.js';
import type { ResolvedEmulatorOptions } from './emulator-options.js';
import type { RequestLogEntry } from './emulator-records.js';
import type { createFaultInjector } from './fault-injector.js';
import type { Route } from './gateway-routes.js';
import type { createGatewayTokens } from './gateway-tokens.js';
import { RequestError, errorBody, headerValue, readBody, sendJson } from './http-io.js';
import type { createRouteLimits } from './route-limits.js';

interface ServeParts {
  config: Pick<ResolvedEmulatorOptions, 'variant' | 'now' | 'onRequest'>;
  routes: readonly Route[];
  tokens: ReturnType<typeof createGatewayTokens>;
  limits: ReturnType<typeof createRouteLimits>;
  faults: ReturnType<typeof createFaultInjector>;
  log: RequestLogEntry[];
}

/**
 * The gateway emulator's request handler: an injected request fault first, then the matching route (405
 * for a known path with another method, 404 else), its token and rate limit checked; every failure in
 * the variant's error shape, and every request logged.
 */
export function serveGatewayRequest({ config, routes, tokens, limits, faults, log }: ServeParts) {
  return async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = (request.method ?? 'GET').toUpperCase();
    const requestUrl = new URL(request.url ?? '/', 'http://emulator');
    const path = requestUrl.pathname;
    const idempotencyKey = headerValue(request.headers['x-idempotency-key']) ?? headerValue(request.headers['idempotency-key']);
    const record = (status: number) => {
      const entry: RequestLogEntry = { method, path, status, ...(idempotencyKey && { idempotencyKey }) };
      log.push(entry);
      config.onRequest(entry);
    };
    const fault = faults.take(method, path);
    if (fault?.action === 'drop-request') {
      record(0);
      request.socket.destroy();
      return;
    }
    let headers: Record<string, string> = {};
    try {
      const body = await readBody(request);
      if (path.startsWith('/_emulator/')) checkControlRequest(request, method, body);
      if (fault?.action === 'status') {
        const status = fault.status ?? 503;
        throw new RequestError(status, status >= 500 ? 'SERVER_ERROR' : 'INJECTED_FAULT', 'Fault injected by the emulator.');
      }
      const candidates = routes.filter((r) => r.pattern.test(path));
      const route = candidates.find((r) => r.method === method);
      if (!route) {
        if (candidates.length > 0) throw new RequestError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on ${path}.`);
        throw new RequestError(404, 'NOT_FOUND', `No endpoint ${method} ${path}.`);
      }
      if (route.auth === 'bearer') tokens.bearerAuth(request.headers);
      headers = limits.take(route, request);
      const result = await route.handle({
        params: route.pattern.exec(path)?.slice(1).map(decodeURIComponent) ?? [],
        query: requestUrl.searchParams,
        body,
        headers: request.headers,
      });
      if (fault?.action === 'drop-response') {
        record(0);
        request.socket.destroy();
        return;
      }
      record(result.status);
      sendJson(response, result.status, result.body, { ...headers, ...result.headers });
    } catch (error) {
      const known = error instanceof RequestError ? error : new RequestError(500, 'SERVER_ERROR', 'Unexpected emulator error.');
      if (!(error instanceof RequestError)) console.error(`pixhook emulator: unexpected error: ${describeError(error)}`);
      record(known.status);
      sendJson(response, known.status, errorBody(config.variant, known, config.now()), { ...headers, ...known.headers });
    }
  };
}
