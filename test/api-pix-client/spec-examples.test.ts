import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiPixBadRequestError,
  ApiPixForbiddenError,
  ApiPixNotFoundError,
  ApiPixServerError,
  type ApiPixClient,
} from '../../src/api-pix/index.js';
import { PixResponseError } from '../../src/client/index.js';
import * as examples from './spec-examples.js';
import { startSpecPsp } from './spec-psp.js';

// A PSP that answers with the spec's own examples, over mTLS with the emulator's certificates: the client must read
// each the way the standard documents it.
let client: ApiPixClient;
let answers: Map<string, { status: number; body?: unknown }>;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ client, answers, close } = await startSpecPsp());
});
afterAll(async () => {
  await close();
});

describe('the client reads the spec’s examples', () => {
  it('cobResponse1 and cobResponse2 (a paid charge with its Pix and a refund in processing)', async () => {
    answers.set('GET /cob/7978c0c97ea847e78e8849634473c1f1', { status: 200, body: examples.cobResponse1 });
    answers.set('GET /cob/655dfdb1a4514b8fbb58254b958913fb', { status: 200, body: examples.cobResponse2 });
    expect(await client.getCharge('7978c0c97ea847e78e8849634473c1f1')).toMatchObject({
      status: 'ATIVA',
      amountInCents: 3700,
      revision: 0,
      location: 'pix.example.com/qr/9d36b84fc70b478fb95c12729b90ca25',
      payer: { cnpj: '12345678000195', name: 'Empresa de Serviços SA' },
      payerRequest: 'Serviço realizado.',
      pix: [],
    });
    const paid = await client.getCharge('655dfdb1a4514b8fbb58254b958913fb');
    expect(paid).toMatchObject({ status: 'CONCLUIDA', amountInCents: 10000, revision: 1 });
    expect(paid.pix).toEqual([
      {
        endToEndId: 'E1234567820200909122120200808008',
        txid: '655dfdb1a4514b8fbb58254b958913fb',
        amountInCents: 11000,
        paidAt: '2020-09-09T20:15:00.358Z',
        payerInfo: '0123456789',
        refunds: [
          {
            id: '123ABC',
            rtrId: 'D1234567820200909122120200808006',
            amountInCents: 1000,
            status: 'processing',
            requestedAt: '2020-09-09T20:15:00.358Z',
          },
        ],
      },
    ]);
  });

  it('pixResponse1–3 (with a 34-character endToEndId, and componentesValor with saque), and devolucoes as one object', async () => {
    for (const pix of [examples.pixResponse1, examples.pixResponse2, examples.pixResponse3, examples.pixWebhook1]) {
      answers.set(`GET /pix/${pix.endToEndId}`, { status: 200, body: pix });
    }
    expect(await client.getPix(examples.pixResponse1.endToEndId)).toMatchObject({
      amountInCents: 10000,
      refunds: [{ amountInCents: 1100 }],
    });
    expect(await client.getPix(examples.pixResponse2.endToEndId)).toMatchObject({ amountInCents: 20000, payerInfo: 'Revisão do carro' });
    expect((await client.getPix(examples.pixResponse3.endToEndId)).components).toEqual({ original: 18000, saque: 2000 });
    expect((await client.getPix(examples.pixWebhook1.endToEndId)).refunds).toMatchObject([{ id: '123ABC', amountInCents: 1000 }]);
  });

  it('devolucaoResponse1–2 and webhookResponse1', async () => {
    answers.set('GET /pix/E12345678202009091221abcdef12345/devolucao/123456', { status: 200, body: examples.devolucaoResponse1 });
    answers.set('GET /pix/E12345678202009091221abcdef12345/devolucao/502', { status: 200, body: examples.devolucaoResponse2 });
    answers.set('GET /webhook/40a0932d-1918-4eee-845d-35a2da1690dc', { status: 200, body: examples.webhookResponse1 });
    expect(await client.getRefund('E12345678202009091221abcdef12345', '123456')).toMatchObject({
      amountInCents: 789,
      status: 'processing',
    });
    expect(await client.getRefund('E12345678202009091221abcdef12345', '502')).toMatchObject({
      amountInCents: 2000,
      status: 'not_returned',
      reason: 'Negado por timeout',
    });
    expect(await client.getWebhook('40a0932d-1918-4eee-845d-35a2da1690dc')).toEqual({
      key: '40a0932d-1918-4eee-845d-35a2da1690dc',
      url: 'https://pix.example.com/api/webhook/',
      createdAt: '2020-11-11T10:15:00.358Z',
    });
  });

  it('an amount off the pattern fails the call instead of becoming a wrong number', async () => {
    answers.set('GET /pix/E00000000000000000000000000bad01', {
      status: 200,
      body: { ...examples.pixResponse2, endToEndId: 'E00000000000000000000000000bad01', valor: '1.5' },
    });
    answers.set('GET /pix/E00000000000000000000000000bad02', {
      status: 200,
      body: { ...examples.pixResponse2, endToEndId: 'E00000000000000000000000000bad02', valor: 200 },
    });
    await expect(client.getPix('E00000000000000000000000000bad01')).rejects.toBeInstanceOf(PixResponseError);
    await expect(client.getPix('E00000000000000000000000000bad02')).rejects.toBeInstanceOf(PixResponseError);
  });
});

describe('every Problema example becomes its typed error, with the body kept', () => {
  const cases = [
    ['RequisicaoInvalidaCobExample1', ApiPixBadRequestError, 'CobOperacaoInvalida'],
    ['OperacaoInvalidaCobExample1', ApiPixBadRequestError, 'CobOperacaoInvalida'],
    ['RequisicaoInvalidaCobVExample1', ApiPixBadRequestError, 'CobVOperacaoInvalida'],
    ['OperacaoInvalidaCobVExample1', ApiPixBadRequestError, 'CobVOperacaoInvalida'],
    ['RequisicaoInvalidaDevolucaoExample1', ApiPixBadRequestError, 'PixDevolucaoInvalida'],
    ['RequisicaoInvalidaWebhookExample1', ApiPixBadRequestError, 'WebhookOperacaoInvalida'],
    ['AcessoNegadoExample1', ApiPixForbiddenError, 'AcessoNegado'],
    ['NaoEncontradoExample1', ApiPixNotFoundError, 'NaoEncontrado'],
    ['ServicoIndisponivelExample1', ApiPixServerError, 'ServicoIndisponivel'],
  ] as const;
  for (const [name, type, code] of cases) {
    it(name, async () => {
      const problem = examples.problems[name];
      answers.set('GET /cob/problemtxid', { status: problem.status, body: problem });
      const error = await client.getCharge('problemtxid').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(type);
      const typed = error as InstanceType<typeof type>;
      expect(typed.apiCode).toBe(code);
      expect(typed.status).toBe(problem.status);
      expect(typed.problem).toEqual({ violacoes: [], ...problem });
      expect(typed.message).toContain(problem.title);
    });
  }
});
