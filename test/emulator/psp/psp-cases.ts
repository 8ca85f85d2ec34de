// One case per PSP for the emulator's end-to-end tests: the receiver's options made from the emulator's
// credentials, the path it is served at (Pagar.me's carries its URL secret), a forged copy of a genuine
// delivery, and a copy replayed with another charge's id.
import type { PspEmulator } from '../../../src/emulator/index.js';
import type { PspSourceOptions } from '../../../src/psp/index.js';

export interface SentDelivery {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface PspCase {
  psp: PspSourceOptions['psp'];
  /** The test's name for the case: the PSP, and how its receiver is set up where that differs. */
  label: string;
  /** The path the receiver is registered at (Pagar.me's URL secret in it). */
  path: string;
  options(emulator: PspEmulator): PspSourceOptions;
  /** True when a webhook names only an id, so the state is fetched from the emulator's API. */
  fetches: boolean;
  /** A genuine delivery with its proof (signature, token, URL secret) made wrong. */
  forged(delivery: SentDelivery): SentDelivery;
  /** A genuine delivery replayed naming `otherId` with the same proof. */
  replayed(delivery: SentDelivery, chargeId: string, otherId: string): SentDelivery;
}

const pagarmeSecret = 'url-secret-of-the-merchant';

const withBody = (d: SentDelivery, chargeId: string, otherId: string): SentDelivery => ({
  ...d,
  body: d.body.replaceAll(chargeId, otherId),
});
const withHeader = (d: SentDelivery, name: string, value: string): SentDelivery => ({ ...d, headers: { ...d.headers, [name]: value } });
/** The first hex digit of v1 changed (never left as it was). */
const flipV1 = (signature: string) => signature.replace(/v1=(.)/, (_, c: string) => `v1=${c === '0' ? '1' : '0'}`);

export const pspCases: PspCase[] = [
  {
    psp: 'mercado-pago',
    label: 'mercado-pago',
    path: '/hooks',
    fetches: true,
    options: (e) => ({
      psp: 'mercado-pago',
      secret: e.credentials['secret']!,
      accessToken: e.credentials['accessToken']!,
      apiBaseUrl: e.url,
    }),
    forged: (d) => withHeader(d, 'x-signature', flipV1(d.headers['x-signature']!)),
    // The id the signature covers is the query's: another id in the query (and the body) breaks the manifest.
    replayed: (d, id, other) => ({ ...withBody(d, id, other), url: d.url.replace(`data.id=${id}`, `data.id=${other}`) }),
  },
  {
    psp: 'asaas',
    label: 'asaas (apiKey: each payment confirmed)',
    path: '/hooks',
    fetches: true,
    options: (e) => ({ psp: 'asaas', token: e.credentials['token']!, apiKey: e.credentials['apiKey']!, apiBaseUrl: e.url }),
    forged: (d) => withHeader(d, 'asaas-access-token', 'not-the-token'),
    replayed: withBody,
  },
  {
    psp: 'pagbank',
    label: 'pagbank',
    path: '/hooks',
    fetches: false,
    options: (e) => ({ psp: 'pagbank', token: e.credentials['token']! }),
    forged: (d) => withBody(d, '"PAID"', '"PAID" '),
    replayed: withBody,
  },
  {
    psp: 'woovi',
    label: 'woovi',
    path: '/hooks',
    fetches: false,
    options: (e) => ({ psp: 'woovi', publicKeys: [e.credentials['publicKey']!] }),
    forged: (d) => withHeader(d, 'x-webhook-signature', Buffer.from('forged').toString('base64')),
    replayed: withBody,
  },
  {
    psp: 'pagarme',
    label: 'pagarme',
    path: `/hooks?secret=${pagarmeSecret}`,
    fetches: true,
    options: (e) => ({ psp: 'pagarme', secretKey: e.credentials['secretKey']!, urlSecret: { secret: pagarmeSecret }, apiBaseUrl: e.url }),
    forged: (d) => ({ ...d, url: d.url.replace(pagarmeSecret, 'not-the-secret') }),
    replayed: withBody,
  },
];

/**
 * Asaas as most merchants set it up: the token alone, no `apiKey`, so the webhook's own payment is the state
 * (no fetch). Its duplicate is the same event id, its late pending a later PAYMENT_CREATED the book does not
 * let undo the payment, and a replay naming another charge keeps the event id it was sent with.
 */
export const asaasTokenOnly: PspCase = {
  ...pspCases.find((c) => c.psp === 'asaas')!,
  label: 'asaas (token only: the body is the state)',
  fetches: false,
  options: (e) => ({ psp: 'asaas', token: e.credentials['token']! }),
};
