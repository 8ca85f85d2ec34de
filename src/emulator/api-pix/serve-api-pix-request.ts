import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeError } from '../../shared/describe-error.js';
import type { createFaultInjector } from '../fault-injector.js';
import { RequestError, readBody } from '../http-io.js';
import type { ApiPixRequestFault } from './api-pix-faults.js';
import type { Route } from './api-pix-routes.js';
import type { createApiPixTokens } from './api-pix-tokens.js';
import { ProblemAnswer } from './problem-answer.js';

/** One request the emulator answered (0: dropped by a fault). */
export interface ApiPixRequestLogEntry {
  method: string;
  path: string;
  status: number;
}

interface ServeParts {
  routes: readonly Route[];
  tokens: ReturnType<typeof createApiPixTokens>;
  requestFaults: ReturnType<typeof createFaultInjector>;
  log: ApiPixRequestLogEntry[];
  onRequest?: ((entry: ApiPixRequestLogEntry) => void) | undefined;
}

/**
 * The emulator's request handler: an injected request fault first, then `/oauth/token` or the matching
 * route (405 for a known path with another method, 404 else), its Bearer token checked; every failure an
 * RFC 7807 problem, as the standard answers.
 */
export function serveApiPixRequest({ routes, tokens, requestFaults, log, onRequest }: ServeParts) {
  return async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = (request.method ?? 'GET').toUpperCase();
    const url = new URL(request.url ?? '/', 'https://emulator');
    const path = url.pathname;
    const record = (status: number) => {
      log.push({ method, path, status });
      try {
        onRequest?.({ method, path, status });
      } catch {
        // A listener's failure never changes an answer.
      }
    };
    const fault = requestFaults.take(method, path) as ApiPixRequestFault | undefined;
    if (fault?.action === 'drop-request') {
      record(0);
      request.socket.destroy();
      return;
    }
    try {
      const body = await readBody(request);
      if (fault?.action === 'status') {
        const status = fault.status ?? 503;
        const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) };
        throw status === 429
          ? new ProblemAnswer(429, 'LimiteExcedido', 'Limite de requisições excedido', 'Muitas requisições; tente mais tarde.', [], headers)
          : new ProblemAnswer(status, 'ServicoIndisponivel', 'Serviço Indisponível', 'Falha injetada pelo emulador.', [], headers);
      }
      let result: { status: number; body?: unknown };
      if (path === '/oauth/token') {
        if (method !== 'POST')
          throw new ProblemAnswer(405, 'MetodoNaoPermitido', 'Método não permitido', `${method} não é permitido em ${path}.`);
        result = tokens.issue(request.headers, body);
      } else {
        const candidates = routes.filter((r) => r.pattern.test(path));
        const route = candidates.find((r) => r.method === method);
        if (!route) {
          if (candidates.length > 0)
            throw new ProblemAnswer(405, 'MetodoNaoPermitido', 'Método não permitido', `${method} não é permitido em ${path}.`);
          throw new ProblemAnswer(404, 'NaoEncontrado', 'Não Encontrado', `Não há recurso ${method} ${path}.`);
        }
        if (route.auth === 'bearer') tokens.check(request.headers);
        result = route.handle({
          params: route.pattern.exec(path)?.slice(1).map(decodeURIComponent) ?? [],
          query: url.searchParams,
          body,
          headers: request.headers,
        });
      }
      if (fault?.action === 'drop-response') {
        record(0);
        request.socket.destroy();
        return;
      }
      record(result.status);
      send(response, result.status, result.body);
    } catch (error) {
      const problem =
        error instanceof ProblemAnswer
          ? error
          : error instanceof RequestError
            ? new ProblemAnswer(error.status, 'RequisicaoInvalida', 'Requisição inválida.', error.message, [], error.headers)
            : new ProblemAnswer(500, 'ErroInterno', 'Erro interno', 'Erro inesperado no emulador.');
      if (!(error instanceof ProblemAnswer) && !(error instanceof RequestError))
        console.error(`pixhook emulator (api-pix): unexpected error: ${describeError(error)}`);
      record(problem.status);
      send(response, problem.status, problem.body(), problem.headers, 'application/problem+json');
    }
  };
}

function send(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
  type = 'application/json',
): void {
  if (body === undefined) {
    response.writeHead(status, headers);
    response.end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, { ...headers, 'content-type': `${type}; charset=utf-8`, 'content-length': Buffer.byteLength(text) });
  response.end(text);
}
