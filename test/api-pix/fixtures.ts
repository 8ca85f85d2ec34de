// The spec's own examples, copied from bacen/pix-api openapi.yaml (components.examples), and a receiver helper.
import type { ReceiveRequest } from '../../src/index.js';

export const pixWebhook1 = {
  endToEndId: 'E12345678202009091221kkkkkkkkkkk',
  txid: 'c3e0e7a4e7f1469a9f782d3d4999343c',
  valor: '110.00',
  horario: '2020-09-09T20:15:00.358Z',
  infoPagador: '0123456789',
  devolucoes: {
    id: '123ABC',
    rtrId: 'D12345678202009091221abcdf098765',
    valor: '10.00',
    horario: { solicitacao: '2020-09-09T20:15:00.358Z' },
    status: 'EM_PROCESSAMENTO',
  },
};

export const pixWebhook2 = {
  endToEndId: 'E87654321202009091221dfghi123456',
  txid: '971122d8f37211eaadc10242ac120002',
  valor: '110.00',
  horario: '2020-09-09T20:15:00.358Z',
  infoPagador: '0123456789',
};

export const recWebhookNotification1 = {
  recs: [
    {
      idRec: 'RR1026652320240821lab77511abf',
      status: 'APROVADA',
      atualizacao: [
        { status: 'CRIADA', data: '2024-08-20T10:12:07.567Z' },
        { status: 'APROVADA', data: '2024-08-22T12:43:53.337Z' },
      ],
      ativacao: { tipoJornada: 'JORNADA_3', dadosJornada: { txid: 'r9eFIFmwcZ55Nm4RsKZAAtIvvCrlcNN6' } },
    },
  ],
};

export const cobRWebhookNotification1 = {
  cobsr: [
    {
      idRec: 'RR1234567820240115abcdefghijk',
      txid: '3136957d93134f2184b369e8f1c0729d',
      status: 'ATIVA',
      atualizacao: [{ status: 'ATIVA', data: '2024-08-20T12:34:21.300Z' }],
      tentativas: [{ dataLiquidacao: '2024-20-08', tipo: 'AGND', status: 'SOLICITADA', endToEndId: 'E12345678202406201221abcdef12345' }],
    },
  ],
};

export const urlSecret = 'a-long-url-secret-for-tests-0123';
/** What the proxy's mTLS server block sends in `x-pixhook-proxy-secret`. */
export const proxySecret = 'a-long-proxy-secret-for-tests-4567';

/** A call as an adapter hands it over, from a peer, with the URL secret in the query. */
export function call(body: unknown, options: { path?: string; secret?: string | null; address?: string } = {}): ReceiveRequest {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const query = options.secret === null ? '' : `?secret=${encodeURIComponent(options.secret ?? urlSecret)}`;
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: new TextEncoder().encode(text),
    url: `${options.path ?? '/webhooks/bank/pix'}${query}`,
    peer: { address: options.address ?? '127.0.0.1' },
  };
}
