import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiPixBadRequestError,
  ApiPixNotFoundError,
  ApiPixRateLimitedError,
  ApiPixUnauthorizedError,
  createApiPixClient,
  type ApiPixReceived,
} from '../../src/api-pix/index.js';
import { readBudget } from '../../src/client/index.js';
import { memoryPaymentBook, PixhookConfigError } from '../../src/index.js';
import { PixValidationError } from '../../src/client/index.js';
import type { ApiPixEmulator } from '../../src/emulator/index.js';
import { clientFor, startApiPix, txid } from './emulator-setup.js';

let emulator: ApiPixEmulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

describe('createApiPixClient against the api-pix emulator (real mTLS, OAuth2)', () => {
  it('creates a cob with a txid (PUT) and without (POST), reads it back, amounts in cents', async () => {
    emulator = await startApiPix();
    const client = clientFor(emulator);
    const charge = await client.createCharge({
      txid: txid(1),
      amountInCents: 3700,
      payer: { cnpj: '12.345.678/0001-95', name: 'Empresa SA' },
    });
    expect(charge).toMatchObject({
      txid: txid(1),
      status: 'ATIVA',
      amountInCents: 3700,
      key: emulator.credentials.pixKey,
      expiresInSeconds: 3600,
    });
    expect(charge.payer).toEqual({ cnpj: '12345678000195', name: 'Empresa SA' });
    expect(charge.location).toMatch(/\/qr\/v2\/[0-9a-f]{32}$/);
    const chosen = await client.createCharge({ amountInCents: 1 });
    expect(chosen.txid).toMatch(/^[a-z0-9]{26,35}$/);
    expect(chosen.amountInCents).toBe(1);
    expect(await client.getCharge(txid(1))).toMatchObject({ txid: txid(1), amountInCents: 3700, pix: [] });
    expect(emulator.requests().filter((r) => r.path === '/oauth/token')).toHaveLength(1);
    client.close();
  });

  it('writes amounts as exact decimal strings: 1 cent, 10 cents, 99 999 999 999 cents', async () => {
    emulator = await startApiPix();
    const client = clientFor(emulator);
    for (const [n, cents] of [1, 10, 99_999_999_999].entries()) {
      const charge = await client.createCharge({ txid: txid(`a${n}`), amountInCents: cents });
      expect(charge.amountInCents).toBe(cents);
    }
    await expect(client.createCharge({ amountInCents: 12.5 })).rejects.toBeInstanceOf(PixValidationError);
    await expect(client.createCharge({ amountInCents: 0 })).rejects.toBeInstanceOf(PixValidationError);
    client.close();
  });

  it('creates and reads a due-date charge (cobv)', async () => {
    emulator = await startApiPix();
    const client = clientFor(emulator);
    const charge = await client.createDueCharge({
      txid: txid(2),
      amountInCents: 12345,
      dueDate: '2030-01-31',
      payer: { cpf: '123.456.789-09', name: 'Fulano' },
    });
    expect(charge).toMatchObject({
      txid: txid(2),
      dueDate: '2030-01-31',
      validAfterDueDays: 30,
      amountInCents: 12345,
      payer: { cpf: '12345678909' },
    });
    expect(await client.getDueCharge(txid(2))).toMatchObject({ amountInCents: 12345 });
    await expect(client.getCharge(txid(2))).rejects.toBeInstanceOf(ApiPixNotFoundError);
    client.close();
  });

  it('reads a paid Pix, lists Pix page after page, refunds and reads the refund', async () => {
    emulator = await startApiPix();
    const client = clientFor(emulator);
    const from = new Date(Date.now() - 60_000);
    await client.createCharge({ txid: txid(3), amountInCents: 11000 });
    const paid = emulator.pay(txid(3));
    for (let i = 0; i < 4; i++) emulator.pixToKey({ amountInCents: 100 + i, notify: false });
    const pix = await client.getPix(paid['endToEndId'] as string);
    expect(pix).toMatchObject({ txid: txid(3), amountInCents: 11000, key: emulator.credentials.pixKey, refunds: [] });
    expect((await client.getCharge(txid(3))).status).toBe('CONCLUIDA');

    const listed: ApiPixReceived[] = [];
    for await (const item of client.listPix({ from, to: new Date(Date.now() + 60_000), pageSize: 2 })) listed.push(item);
    expect(listed.map((p) => p.amountInCents)).toEqual([11000, 100, 101, 102, 103]);
    expect(emulator.requests().filter((r) => r.path === '/pix')).toHaveLength(3);
    const byTxid: ApiPixReceived[] = [];
    for await (const item of client.listPix({ from, to: Date.now() + 60_000, txid: txid(3) })) byTxid.push(item);
    expect(byTxid.map((p) => p.endToEndId)).toEqual([pix.endToEndId]);

    const refund = await client.refund(pix.endToEndId, 'refund1', 1000);
    expect(refund).toMatchObject({ id: 'refund1', amountInCents: 1000, status: 'processing', nature: 'ORIGINAL' });
    expect(refund.rtrId).toMatch(/^D\w{31}$/);
    // The same PUT again is the same refund: the retry-safe call never refunds twice.
    expect(await client.refund(pix.endToEndId, 'refund1', 1000)).toMatchObject({ rtrId: refund.rtrId });
    await emulator.idle();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await client.getRefund(pix.endToEndId, 'refund1')).toMatchObject({ status: 'returned', amountInCents: 1000 });
    expect((await client.getPix(pix.endToEndId)).refunds).toHaveLength(1);
    client.close();
  });

  it('configures, reads and deletes the webhook of the default key and of another key', async () => {
    emulator = await startApiPix();
    const client = clientFor(emulator);
    await client.configureWebhook('https://merchant.example/pix-webhook');
    expect(await client.getWebhook()).toMatchObject({ key: emulator.credentials.pixKey, url: 'https://merchant.example/pix-webhook' });
    await client.configureWebhook('other@example.com', 'https://merchant.example/other');
    expect((await client.getWebhook('other@example.com')).url).toBe('https://merchant.example/other');
    await client.deleteWebhook();
    await expect(client.getWebhook()).rejects.toBeInstanceOf(ApiPixNotFoundError);
    await expect(client.configureWebhook('http://merchant.example/plain')).rejects.toBeInstanceOf(PixValidationError);
    client.close();
  });

  it('expects each created charge in the book by its txid (amount, expiry)', async () => {
    emulator = await startApiPix();
    const book = memoryPaymentBook();
    const client = clientFor(emulator, { book });
    const charge = await client.createCharge({ txid: txid(4), amountInCents: 2590, expiresInSeconds: 600 });
    expect(charge.expected).toEqual({ ok: true });
    const expectation = (await book.get(txid(4)))?.expected;
    expect(expectation).toMatchObject({ amountInCents: 2590 });
    expect(Date.parse(expectation?.expiresAt as string) - Date.parse(charge.createdAt as string)).toBe(600_000);
    client.close();
  });
});

describe('Problema answers become typed errors', () => {
  it('invalid txid (400 with violacoes), unknown txid (404), a charge no longer ATIVA changed (400)', async () => {
    emulator = await startApiPix();
    const client = clientFor(emulator);
    // A txid the client would refuse is sent raw, to see the PSP's own answer.
    const raw = await rawCall(emulator, 'PUT', '/cob/short', { valor: { original: '1.00' }, chave: 'k' });
    expect(raw.status).toBe(400);
    expect(raw.body).toMatchObject({
      type: 'https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida',
      status: 400,
      violacoes: [{ propriedade: 'cob.txid' }],
    });

    await expect(client.getCharge('unknowntxid')).rejects.toSatisfy(
      (error: unknown) =>
        error instanceof ApiPixNotFoundError && error.problem.type.endsWith('/NaoEncontrado') && error.apiCode === 'NaoEncontrado',
    );
    await client.createCharge({ txid: txid(5), amountInCents: 500 });
    emulator.pay(txid(5));
    const changed = client.createCharge({ txid: txid(5), amountInCents: 600 });
    await expect(changed).rejects.toBeInstanceOf(ApiPixBadRequestError);
    await expect(changed).rejects.toMatchObject({ problem: { detail: expect.stringContaining('ATIVA') }, status: 400 });
    const bad = await client.refund((await firstPix(client)).endToEndId, 'toomuch', 999_999).catch((error: unknown) => error);
    expect(bad).toBeInstanceOf(ApiPixBadRequestError);
    expect((bad as ApiPixBadRequestError).problem).toMatchObject({
      type: 'https://pix.bcb.gov.br/api/v2/error/PixDevolucaoInvalida',
      violacoes: [{ propriedade: 'devolucao.valor' }],
    });
    client.close();
  });

  it('wrong credentials: 401 from the token endpoint, typed', async () => {
    emulator = await startApiPix();
    const client = clientFor(emulator, { clientSecret: 'wrong' });
    const error = await client.getCharge(txid(1)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiPixUnauthorizedError);
    expect((error as ApiPixUnauthorizedError).problem).toMatchObject({ title: 'invalid_client', status: 401 });
    expect(String((error as Error).message)).not.toContain('wrong');
    client.close();
  });

  it('a client without the run certificate is refused in the TLS handshake', async () => {
    emulator = await startApiPix();
    const ca = readFileSync(emulator.certificates.ca);
    const outcome = await new Promise<string>((resolve) => {
      const req = request(`${emulator!.url}/oauth/token`, { method: 'POST', ca }, (res) => resolve(`answered ${res.statusCode}`));
      req.on('error', (error) => resolve(`refused: ${error.message}`));
      req.end();
    });
    expect(outcome).toMatch(/^refused/);
  });
});

describe('tokens, retries and rate limits', () => {
  it('one token for many concurrent calls; a revoked token is renewed once, by one refresh for all', async () => {
    emulator = await startApiPix();
    const client = clientFor(emulator);
    await client.createCharge({ txid: txid(6), amountInCents: 100 });
    await Promise.all(Array.from({ length: 20 }, () => client.getCharge(txid(6))));
    const tokenCalls = () => emulator!.requests().filter((r) => r.path === '/oauth/token').length;
    expect(tokenCalls()).toBe(1);
    emulator.revokeTokens();
    await Promise.all(Array.from({ length: 20 }, () => client.getCharge(txid(6))));
    expect(tokenCalls()).toBe(2);
    expect(emulator.requests().filter((r) => r.status === 401)).toHaveLength(20);
    client.close();
  });

  it('renews the token before it expires', async () => {
    emulator = await startApiPix({ tokenTtlMs: 61_000 });
    let now = Date.now();
    const client = clientFor(emulator, { now: () => now, renewBeforeMs: 60_000 });
    await client.createCharge({ txid: txid(7), amountInCents: 100 });
    now += 2_000;
    await client.getCharge(txid(7));
    expect(emulator.requests().filter((r) => r.path === '/oauth/token')).toHaveLength(2);
    expect(emulator.requests().some((r) => r.status === 401)).toBe(false);
    client.close();
  });

  it('a 429 with Retry-After is waited for and retried on a safe call; POST /cob is never retried', async () => {
    emulator = await startApiPix();
    const waits: number[] = [];
    const warnings: string[] = [];
    const client = clientFor(emulator, {
      sleep: async (ms) => void waits.push(ms),
      retry: { attempts: 3, backoff: { delayMs: 5, factor: 1, maxDelayMs: 60_000 } },
      logger: { info() {}, error() {}, warn: (_fields, message) => void warnings.push(message ?? '') },
    });
    await client.createCharge({ txid: txid(8), amountInCents: 100 });
    emulator.injectFault({ method: 'GET', path: `/cob/${txid(8)}`, action: 'status', status: 429, retryAfter: 2 });
    expect((await client.getCharge(txid(8))).txid).toBe(txid(8));
    expect(waits).toEqual([2000]);
    // The wait is said before it is slept: a stalled call is never silent.
    expect(warnings).toEqual([`pixhook client: GET /cob/${txid(8)} answered 429; retry 1 of 2 in 2000 ms`]);
    emulator.injectFault({ method: 'POST', path: '/cob', action: 'status', status: 503 });
    await expect(client.createCharge({ amountInCents: 100 })).rejects.toMatchObject({ status: 503 });
    expect(emulator.requests().filter((r) => r.method === 'POST' && r.path === '/cob')).toHaveLength(1);
    // A wait longer than the policy's longest is thrown to the caller with its retryAfter.
    emulator.injectFault({ method: 'GET', path: `/cob/${txid(8)}`, action: 'status', status: 429, retryAfter: 3600 });
    await expect(client.getCharge(txid(8))).rejects.toSatisfy(
      (error: unknown) => error instanceof ApiPixRateLimitedError && error.retryAfter === 3600,
    );
    client.close();
  });

  it('a PUT whose answer was lost is retried and answers the same charge', async () => {
    emulator = await startApiPix();
    const client = clientFor(emulator, { sleep: async () => {} });
    emulator.injectFault({ method: 'PUT', path: `/cob/${txid(9)}`, action: 'drop-response' });
    const charge = await client.createCharge({ txid: txid(9), amountInCents: 4200 });
    expect(charge.amountInCents).toBe(4200);
    expect(
      emulator
        .requests()
        .filter((r) => r.path === `/cob/${txid(9)}`)
        .map((r) => r.status),
    ).toEqual([0, 200]);
    client.close();
  });

  it('reads draw from the read budget; spent, a read fails at once as a 429', async () => {
    emulator = await startApiPix();
    const client = clientFor(emulator, { readBudget: readBudget({ perMinute: 2 }) });
    await client.createCharge({ txid: txid(10), amountInCents: 100 });
    await client.getCharge(txid(10));
    await client.getCharge(txid(10));
    await expect(client.getCharge(txid(10))).rejects.toMatchObject({ apiCode: 'READ_BUDGET_SPENT', status: 429 });
    client.close();
  });
});

describe('options are checked at construction', () => {
  it('refuses http, a missing secret, a cert path that does not exist', async () => {
    emulator = await startApiPix();
    const base = {
      baseUrl: emulator.url,
      clientId: 'a',
      clientSecret: 'b',
      cert: emulator.certificates.clientCert,
      key: emulator.certificates.clientKey,
    };
    expect(() => createApiPixClient({ ...base, baseUrl: 'http://psp.example' })).toThrow(/`baseUrl` must be an https URL/);
    expect(() => createApiPixClient({ ...base, clientSecret: '' })).toThrow(PixhookConfigError);
    expect(() => createApiPixClient({ ...base, cert: '/nonexistent/cert.pem' })).toThrow(
      /`cert` must be PEM text or the path of a PEM file/,
    );
    expect(() => createApiPixClient({ ...base, cert: readFileSync(emulator!.certificates.clientCert, 'utf8') }).close()).not.toThrow();
  });
});

async function firstPix(client: ReturnType<typeof clientFor>): Promise<ApiPixReceived> {
  for await (const pix of client.listPix({ from: Date.now() - 60_000, to: Date.now() + 60_000 })) return pix;
  throw new Error('no pix');
}

async function rawCall(emulator: ApiPixEmulator, method: string, path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const tls = {
    cert: readFileSync(emulator.certificates.clientCert),
    key: readFileSync(emulator.certificates.clientKey),
    ca: readFileSync(emulator.certificates.ca),
  };
  const form = 'grant_type=client_credentials';
  const basic = Buffer.from(`${emulator.credentials.clientId}:${emulator.credentials.clientSecret}`).toString('base64');
  const send = (m: string, p: string, headers: Record<string, string>, text: string) =>
    new Promise<{ status: number; body: unknown }>((resolve, reject) => {
      const req = request(`${emulator.url}${p}`, { method: m, headers, ...tls }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') as unknown }),
        );
      });
      req.on('error', reject);
      req.end(text);
    });
  const token = await send(
    'POST',
    '/oauth/token',
    { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    form,
  );
  const accessToken = (token.body as { access_token: string }).access_token;
  return send(method, path, { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }, JSON.stringify(body));
}
