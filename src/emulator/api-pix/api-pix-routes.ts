import type { IncomingMessage } from 'node:http';
import type { createApiPixState } from './api-pix-state.js';
import { jsonBody } from './api-pix-request-body.js';

interface RouteContext {
  params: string[];
  query: URLSearchParams;
  body: Buffer;
  headers: IncomingMessage['headers'];
}

/** One route of the emulated PSP: its parameters are the pattern's groups, URL-decoded. */
export interface Route {
  method: string;
  pattern: RegExp;
  auth: 'bearer' | 'none';
  handle: (ctx: RouteContext) => { status: number; body?: unknown };
}

/** The standard API Pix (bacen/pix-api) the emulator serves: cob, cobv, pix, devolução and webhook, behind a Bearer token. */
export function pspRoutes(state: ReturnType<typeof createApiPixState>, refundRequested: (e2eid: string, id: string) => void): Route[] {
  function put(kind: 'cob' | 'cobv', txid: string, body: Buffer): { status: number; body: unknown } {
    const result = state.putCob(kind, txid, jsonBody(body));
    return { status: result.created ? 201 : 200, body: result.json };
  }

  return [
    { method: 'PUT', pattern: /^\/cob\/([^/]+)$/, auth: 'bearer', handle: ({ params, body }) => put('cob', params[0] as string, body) },
    {
      method: 'POST',
      pattern: /^\/cob$/,
      auth: 'bearer',
      handle: ({ body }) => ({ status: 201, body: state.putCob('cob', state.newTxid(), jsonBody(body)).json }),
    },
    {
      method: 'GET',
      pattern: /^\/cob\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params }) => ({ status: 200, body: state.getCob('cob', params[0] as string) }),
    },
    {
      method: 'PATCH',
      pattern: /^\/cob\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params, body }) => ({ status: 200, body: state.patchCob(params[0] as string, jsonBody(body)) }),
    },
    { method: 'PUT', pattern: /^\/cobv\/([^/]+)$/, auth: 'bearer', handle: ({ params, body }) => put('cobv', params[0] as string, body) },
    {
      method: 'GET',
      pattern: /^\/cobv\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params }) => ({ status: 200, body: state.getCob('cobv', params[0] as string) }),
    },
    { method: 'GET', pattern: /^\/pix$/, auth: 'bearer', handle: ({ query }) => ({ status: 200, body: state.listPix(query) }) },
    {
      method: 'GET',
      pattern: /^\/pix\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params }) => ({ status: 200, body: state.getPix(params[0] as string) }),
    },
    {
      method: 'PUT',
      pattern: /^\/pix\/([^/]+)\/devolucao\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params, body }) => {
        const [e2eid, id] = params as [string, string];
        const result = state.requestRefund(e2eid, id, jsonBody(body));
        if (result.created) refundRequested(e2eid, id);
        return { status: 201, body: result.json };
      },
    },
    {
      method: 'GET',
      pattern: /^\/pix\/([^/]+)\/devolucao\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params }) => ({ status: 200, body: state.getRefund(params[0] as string, params[1] as string) }),
    },
    {
      method: 'PUT',
      pattern: /^\/webhook\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params, body }) => ({ status: 200, body: state.putWebhook(params[0] as string, jsonBody(body)) }),
    },
    {
      method: 'GET',
      pattern: /^\/webhook\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params }) => ({ status: 200, body: state.getWebhook(params[0] as string) }),
    },
    {
      method: 'DELETE',
      pattern: /^\/webhook\/([^/]+)$/,
      auth: 'bearer',
      handle: ({ params }) => {
        state.deleteWebhook(params[0] as string);
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      pattern: /^\/webhook$/,
      auth: 'bearer',
      handle: () => {
        const webhooks = state.listWebhooks();
        const paginacao = { paginaAtual: 0, itensPorPagina: 100, quantidadeDePaginas: 1, quantidadeTotalDeItens: webhooks.length };
        return { status: 200, body: { parametros: { paginacao }, webhooks } };
      },
    },
  ];
}
