// An empty credential is no credential: every source answers 401 `signature_missing` to it, as to one left
// out (an empty `?secret=` once answered Pagar.me's `signature_mismatch`, while an empty header was missing).
import { describe, expect, it } from 'vitest';
import { createReceiver, type Receiver } from '../../src/index.js';
import { createPspReceiver } from '../../src/psp/index.js';
import { asaas, mercadoPago, pagarme, pagbank, woovi, type PspProfile } from '../psp/psp-profiles.js';

/** Each source, the request target it is sent to, and how its credential is given empty. */
const cases: { name: string; receiver: () => Receiver; empty: { headers: Record<string, string>; url: string }[] }[] = [
  ...(
    [
      [mercadoPago, 'x-signature'],
      [asaas, 'asaas-access-token'],
      [pagbank, 'x-authenticity-token'],
      [woovi, 'x-webhook-signature'],
    ] as [PspProfile, string][]
  ).map(([profile, header]) => ({
    name: profile.psp,
    receiver: () => createPspReceiver(profile.options('http://127.0.0.1:9')),
    empty: [
      { headers: { [header]: '' }, url: '/hook?data.id=1&type=payment' },
      { headers: { [header]: '   ' }, url: '/hook?data.id=1&type=payment' },
    ],
  })),
  {
    name: 'pagarme',
    receiver: () => createPspReceiver(pagarme.options('http://127.0.0.1:9')),
    empty: [
      { headers: {}, url: '/hook?secret=' },
      { headers: {}, url: '/hook?secret=%20%20' },
      { headers: {}, url: '/hook?secret' },
    ],
  },
  {
    name: 'gateway',
    receiver: () => createReceiver({ secret: 'whsec_empty_credential_test' }),
    empty: [
      { headers: { 'x-signature': '' }, url: '/hook' },
      { headers: { 'x-signature': '  ' }, url: '/hook' },
    ],
  },
];

describe('an empty credential reads as missing on every source', () => {
  for (const { name, receiver, empty } of cases) {
    it(`${name}: 401 signature_missing`, async () => {
      const r = receiver();
      for (const request of empty) {
        const headers = { 'content-type': 'application/json', ...request.headers };
        const answer = await r.receive({ method: 'POST', headers, body: '{"id":"x"}', url: request.url });
        expect({ url: request.url, status: answer.status, reason: answer.reason }).toEqual({
          url: request.url,
          status: 401,
          reason: 'signature_missing',
        });
      }
    });
  }
});
