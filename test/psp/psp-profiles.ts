// One profile per PSP for the sources' tests: its options, and a delivery stating a charge at a state,
// signed as the PSP signs it with the test kit (pixhook/testing). Where the PSP's body is only a hint, the
// state is set on the local confirmation server the receiver fetches from.
import { generateKeyPairSync } from 'node:crypto';
import type { PspSourceOptions } from '../../src/psp/index.js';
import { signAsaas, signMercadoPago, signPagarme, signPagBank, signWoovi } from '../../src/testing/index.js';
import type { ConfirmationServer } from './confirmation-server.js';

export interface ChargeState {
  id: string;
  status: 'paid' | 'pending';
  amountInCents: number;
  payer?: string;
  /** Asaas's event id (a resend keeps it). */
  eventId?: string;
}

export interface PspDeliveryRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface PspProfile {
  psp: PspSourceOptions['psp'];
  /** The header and value its confirmation API checks; undefined when nothing is fetched. */
  credential: { header: string; value: string } | undefined;
  options(apiBaseUrl: string): PspSourceOptions;
  /** A genuine delivery of `state` (its record set on `server` where the PSP's body is only a hint). */
  delivery(state: ChargeState, server: ConfirmationServer | undefined): Promise<PspDeliveryRequest>;
  /** The same delivery with its signature (or token, or URL secret) left out. */
  unsigned(request: PspDeliveryRequest): PspDeliveryRequest;
  /** The same delivery with a wrong signature (or token, or URL secret). */
  forged(request: PspDeliveryRequest): PspDeliveryRequest;
}

const reais = (cents: number) => (cents / 100).toFixed(2);
const json = { 'content-type': 'application/json' };

function without(request: PspDeliveryRequest, header: string): PspDeliveryRequest {
  const headers = { ...request.headers };
  delete headers[header];
  return { ...request, headers };
}

export const mpSecret = 'mp-webhook-secret';
export const mpAccessToken = 'APP_USR-test-access-token';

export const mercadoPago: PspProfile = {
  psp: 'mercado-pago',
  credential: { header: 'authorization', value: `Bearer ${mpAccessToken}` },
  options: (apiBaseUrl) => ({ psp: 'mercado-pago', secret: mpSecret, accessToken: mpAccessToken, apiBaseUrl }),
  async delivery(state, server) {
    server!.set(`/v1/payments/${state.id}`, {
      id: state.id,
      status: state.status === 'paid' ? 'approved' : 'pending',
      transaction_amount: Number(reais(state.amountInCents)),
      payer: { identification: { type: 'CPF', number: state.payer ?? '19119119100' } },
    });
    const signed = await signMercadoPago({ secret: mpSecret, dataId: state.id });
    const body = JSON.stringify({ id: 1, live_mode: false, type: 'payment', action: 'payment.updated', data: { id: state.id } });
    return { path: signed.query, headers: { ...json, ...signed.headers }, body };
  },
  unsigned: (request) => without(request, 'x-signature'),
  // The first hex digit of v1 changed (never left as it was).
  forged: (request) => ({
    ...request,
    headers: {
      ...request.headers,
      'x-signature': request.headers['x-signature']!.replace(/v1=(.)/, (_, c: string) => `v1=${c === '0' ? '1' : '0'}`),
    },
  }),
};

export const asaasToken = 'asaas-webhook-token-123';

export const asaas: PspProfile = {
  psp: 'asaas',
  credential: undefined,
  options: () => ({ psp: 'asaas', token: asaasToken }),
  async delivery(state) {
    const body = JSON.stringify({
      id: state.eventId ?? `evt_${state.id}_${state.status}`,
      event: state.status === 'paid' ? 'PAYMENT_RECEIVED' : 'PAYMENT_CREATED',
      dateCreated: '2026-11-27 10:00:00',
      payment: {
        object: 'payment',
        id: state.id,
        value: Number(reais(state.amountInCents)),
        billingType: 'PIX',
        status: state.status === 'paid' ? 'RECEIVED' : 'PENDING',
        externalReference: null,
      },
    });
    return { path: '', headers: { ...json, ...signAsaas({ token: asaasToken }) }, body };
  },
  unsigned: (request) => without(request, 'asaas-access-token'),
  forged: (request) => ({ ...request, headers: { ...request.headers, 'asaas-access-token': 'asaas-webhook-token-124' } }),
};

export const pagbankToken = 'pagbank-account-token';

export const pagbank: PspProfile = {
  psp: 'pagbank',
  credential: undefined,
  options: () => ({ psp: 'pagbank', token: pagbankToken }),
  async delivery(state) {
    const body = JSON.stringify({
      id: `ORDE_${state.id}`,
      customer: { tax_id: state.payer ?? '12345678909' },
      charges: [
        { id: state.id, status: state.status === 'paid' ? 'PAID' : 'WAITING', amount: { value: state.amountInCents, currency: 'BRL' } },
      ],
    });
    return { path: '', headers: { ...json, 'x-authenticity-token': await signPagBank({ token: pagbankToken, body }) }, body };
  },
  unsigned: (request) => without(request, 'x-authenticity-token'),
  forged: (request) => ({ ...request, headers: { ...request.headers, 'x-authenticity-token': '0'.repeat(64) } }),
};

export const wooviKeys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
export const strangerKeys = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});

export const woovi: PspProfile = {
  psp: 'woovi',
  credential: undefined,
  options: () => ({ psp: 'woovi', publicKeys: [wooviKeys.publicKey] }),
  async delivery(state) {
    const body = JSON.stringify({
      event: state.status === 'paid' ? 'OPENPIX:CHARGE_COMPLETED' : 'OPENPIX:CHARGE_CREATED',
      charge: {
        correlationID: state.id,
        value: state.amountInCents,
        status: state.status === 'paid' ? 'COMPLETED' : 'ACTIVE',
        customer: { taxID: { taxID: state.payer ?? '12345678976', type: 'BR:CPF' } },
      },
      ...(state.status === 'paid' && {
        pix: { endToEndId: `E18236120202611271000${state.id.slice(0, 11).padEnd(11, '0')}`, value: state.amountInCents },
      }),
    });
    return { path: '', headers: { ...json, 'x-webhook-signature': signWoovi({ privateKey: wooviKeys.privateKey, body }) }, body };
  },
  unsigned: (request) => without(request, 'x-webhook-signature'),
  forged: (request) => ({
    ...request,
    headers: { ...request.headers, 'x-webhook-signature': signWoovi({ privateKey: strangerKeys.privateKey, body: request.body }) },
  }),
};

export const pagarmeSecretKey = 'sk_test_pagarme';
export const pagarmeUrlSecret = 'pagarme-url-secret';

export const pagarme: PspProfile = {
  psp: 'pagarme',
  credential: { header: 'authorization', value: `Basic ${Buffer.from(`${pagarmeSecretKey}:`).toString('base64')}` },
  options: (apiBaseUrl) => ({ psp: 'pagarme', secretKey: pagarmeSecretKey, urlSecret: { secret: pagarmeUrlSecret }, apiBaseUrl }),
  async delivery(state, server) {
    server!.set(`/core/v5/charges/${state.id}`, {
      id: state.id,
      status: state.status,
      amount: state.amountInCents,
      ...(state.status === 'paid' && { paid_amount: state.amountInCents }),
      customer: { document: state.payer ?? '93095135270' },
    });
    const body = JSON.stringify({
      id: `hook_${state.id}_${state.status}`,
      type: `charge.${state.status}`,
      created_at: '2026-11-27T13:00:05Z',
      data: { id: state.id, status: state.status },
    });
    return { path: signPagarme({ path: '', secret: pagarmeUrlSecret }), headers: json, body };
  },
  unsigned: (request) => ({ ...request, path: '' }),
  forged: (request) => ({ ...request, path: signPagarme({ path: '', secret: 'guessed' }) }),
};

export const profiles: readonly PspProfile[] = [mercadoPago, asaas, pagbank, woovi, pagarme];
