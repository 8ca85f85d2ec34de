import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiPixClient, ApiPixReceived } from '../../src/api-pix/index.js';
import * as examples from './spec-examples.js';
import { startSpecPsp, type SpecRequest } from './spec-psp.js';

// Every operation of the client against a PSP that answers with the spec's examples: what the client sends is the
// spec's request (paths, decimal strings, field names), and what it reads back is the example in cents.
let psp: Awaited<ReturnType<typeof startSpecPsp>>;
let client: ApiPixClient;
beforeAll(async () => {
  psp = await startSpecPsp();
  client = psp.client;
});
afterAll(async () => {
  await psp.close();
});

const last = (method: string, path: string): SpecRequest | undefined =>
  psp.requests.filter((r) => r.method === method && r.path === path).at(-1);

describe('every client operation, against the spec’s examples', () => {
  it('createCharge with a txid: PUT /cob/{txid} with valor.original as a decimal string; cobResponse1 read in cents', async () => {
    const txid = examples.cobResponse1.txid;
    psp.answers.set(`PUT /cob/${txid}`, { status: 201, body: examples.cobResponse1 });
    const charge = await client.createCharge({
      txid,
      amountInCents: 3700,
      payer: { cnpj: '12345678000195', name: 'Empresa de Serviços SA' },
      payerRequest: 'Serviço realizado.',
    });
    expect(charge).toMatchObject({ txid, status: 'ATIVA', amountInCents: 3700, location: examples.cobResponse1.location });
    expect(last('PUT', `/cob/${txid}`)?.body).toMatchObject({
      calendario: { expiracao: 3600 },
      devedor: { cnpj: '12345678000195', nome: 'Empresa de Serviços SA' },
      valor: { original: '37.00' },
      chave: '7d9f0335-8dcc-4054-9bf9-0dbd61d36906',
      solicitacaoPagador: 'Serviço realizado.',
    });
  });

  it('createCharge without a txid: POST /cob, and the PSP’s txid comes back', async () => {
    psp.answers.set('POST /cob', { status: 201, body: examples.cobResponse1 });
    const charge = await client.createCharge({ amountInCents: 3700 });
    expect(charge.txid).toBe(examples.cobResponse1.txid);
    expect(last('POST', '/cob')?.body).toMatchObject({ valor: { original: '37.00' } });
  });

  it('createDueCharge and getDueCharge: PUT and GET /cobv/{txid}, cobResponse4', async () => {
    const txid = examples.cobResponse4.txid;
    psp.answers.set(`PUT /cobv/${txid}`, { status: 201, body: examples.cobResponse4 });
    psp.answers.set(`GET /cobv/${txid}`, { status: 200, body: examples.cobResponse4 });
    const due = await client.createDueCharge({
      txid,
      amountInCents: 12345,
      dueDate: '2020-12-31',
      payer: { cpf: '12345678909', name: 'Francisco da Silva' },
      key: '5f84a4c5-c5cb-4599-9f13-7eb4d419dacc',
    });
    expect(due).toMatchObject({ txid, amountInCents: 12345, dueDate: '2020-12-31', validAfterDueDays: 30, status: 'ATIVA' });
    expect(last('PUT', `/cobv/${txid}`)?.body).toMatchObject({
      calendario: { dataDeVencimento: '2020-12-31' },
      devedor: { cpf: '12345678909', nome: 'Francisco da Silva' },
      valor: { original: '123.45' },
      chave: '5f84a4c5-c5cb-4599-9f13-7eb4d419dacc',
    });
    expect(await client.getDueCharge(txid)).toMatchObject({ amountInCents: 12345, payer: { cpf: '12345678909' } });
  });

  it('listPix: GET /pix?inicio&fim, getPix1 read item by item', async () => {
    psp.answers.set('GET /pix', { status: 200, body: examples.getPix1 });
    const listed: ApiPixReceived[] = [];
    for await (const pix of client.listPix({ from: '2020-04-01T00:00:00Z', to: '2020-04-01T23:59:59Z' })) listed.push(pix);
    expect(listed.map((pix) => [pix.endToEndId, pix.amountInCents])).toEqual([
      [examples.pixResponse1.endToEndId, 10000],
      [examples.pixResponse2.endToEndId, 20000],
      [examples.pixResponse3.endToEndId, 20000],
    ]);
    const query = last('GET', '/pix')?.query;
    expect(Date.parse(query?.get('inicio') ?? '')).toBe(Date.parse('2020-04-01T00:00:00Z'));
    expect(Date.parse(query?.get('fim') ?? '')).toBe(Date.parse('2020-04-01T23:59:59Z'));
  });

  it('refund: PUT /pix/{e2eid}/devolucao/{id} with valor as a decimal string, devolucaoResponse1', async () => {
    const path = `/pix/${examples.pixResponse1.endToEndId}/devolucao/123456`;
    psp.answers.set(`PUT ${path}`, { status: 201, body: examples.devolucaoResponse1 });
    const refund = await client.refund(examples.pixResponse1.endToEndId, '123456', 789);
    expect(refund).toMatchObject({ id: '123456', rtrId: examples.devolucaoResponse1.rtrId, amountInCents: 789, status: 'processing' });
    expect(last('PUT', path)?.body).toMatchObject({ valor: '7.89' });
  });

  it('configureWebhook and deleteWebhook: PUT /webhook/{chave} with webhookBody1, DELETE answered 204', async () => {
    const key = examples.webhookResponse1.chave;
    psp.answers.set(`PUT /webhook/${key}`, { status: 200 });
    psp.answers.set(`DELETE /webhook/${key}`, { status: 204 });
    await client.configureWebhook(key, 'https://pix.example.com/api/webhook/');
    expect(last('PUT', `/webhook/${key}`)?.body).toEqual({ webhookUrl: 'https://pix.example.com/api/webhook/' });
    await client.deleteWebhook(key);
    expect(last('DELETE', `/webhook/${key}`)).toBeDefined();
  });

  it('the first calls of a new client share one token: one client_credentials request with Basic auth, then Bearer', async () => {
    const fresh = psp.newClient();
    const txid = examples.cobResponse2.txid;
    psp.answers.set(`GET /cob/${txid}`, { status: 200, body: examples.cobResponse2 });
    const before = psp.requests.length;
    const charges = await Promise.all(Array.from({ length: 20 }, () => fresh.getCharge(txid)));
    expect(charges.every((charge) => charge.amountInCents === 10000)).toBe(true);
    const made = psp.requests.slice(before);
    const tokens = made.filter((r) => r.path === '/oauth/token');
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({ method: 'POST', auth: 'Basic' });
    expect(new URLSearchParams(String(tokens[0]!.body)).get('grant_type')).toBe('client_credentials');
    expect(made.filter((r) => r.path === `/cob/${txid}`).map((r) => r.auth)).toEqual(Array.from({ length: 20 }, () => 'Bearer'));
  });
});
