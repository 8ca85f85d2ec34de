import { createPublicKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { signWoovi } from '../../sources/woovi/sign.js';
import type { PspCharge, PspProfile } from './psp-profile.js';
import { randomId } from './psp-credentials.js';

interface KeyPair {
  id: string;
  publicKey: string;
  privateKey: string;
}

function keyPair(given?: string): KeyPair {
  // A given private key (PEM, as `pixhook send --profile woovi --key` reads it) signs instead of a new pair.
  if (given !== undefined)
    return {
      id: `key_${randomId(6)}`,
      publicKey: createPublicKey(given).export({ type: 'spki', format: 'pem' }).toString(),
      privateKey: given,
    };
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { id: `key_${randomId(6)}`, publicKey, privateKey };
}

/**
 * Woovi / OpenPix (developers.woovi.com/docs/webhook: seguranca/webhook-signature-validation,
 * webhook-public-keys, webhook-retry): `x-webhook-signature` is RSA-SHA256 (base64) over the raw body,
 * signed by the sources' own signer with a key pair made for this run; `GET /api/v1/webhook/public-keys`
 * lists the public keys (base64 of PEM, with `key_identifier` and `is_current`), and the rotate control
 * makes a new current key. 8 attempts, 10 s × 2ⁿ apart. No confirmation is needed. `privateKey` in the
 * given credentials signs instead of a key made for the run.
 */
export function wooviProfile(given: Readonly<Record<string, string>>): PspProfile {
  const keys: KeyPair[] = [keyPair(given['privateKey'])];
  const current = () => keys[keys.length - 1] as KeyPair;

  function record(charge: PspCharge): Record<string, unknown> {
    const paid = charge.status !== 'pending';
    return {
      status: paid ? 'COMPLETED' : 'ACTIVE',
      customer: { name: 'Pagador Emulado', taxID: { taxID: charge.payerDocument, type: 'BR:CPF' } },
      value: charge.amountInCents,
      comment: 'Pagamento emulado',
      transactionID: charge.id.replace(/-/g, ''),
      correlationID: charge.id,
      createdAt: charge.createdAt,
      updatedAt: charge.paidAt ?? charge.createdAt,
      ...(paid && { paidAt: charge.paidAt }),
    };
  }

  function body(charge: PspCharge): Record<string, unknown> {
    if (charge.status === 'pending') return { event: 'OPENPIX:CHARGE_CREATED', charge: record(charge) };
    const payer = { name: 'Pagador Emulado', taxID: { taxID: charge.payerDocument, type: 'BR:CPF' } };
    const value = charge.paidInCents ?? charge.amountInCents;
    // A MED dispute: `OPENPIX:DISPUTE_*` (the suffix CREATED is the emulator's choice: the source reads any).
    const dispute =
      charge.status === 'disputed' ? { dispute: { id: `disp_${charge.id.slice(0, 8)}`, status: 'OPEN', reason: 'fraud', value } } : {};
    const event = { paid: 'CHARGE_COMPLETED', refunded: 'TRANSACTION_REFUND_RECEIVED', disputed: 'DISPUTE_CREATED' }[charge.status];
    return {
      event: `OPENPIX:${event}`,
      ...dispute,
      charge: { ...record(charge), value },
      pix: {
        customer: payer,
        payer,
        time: charge.paidAt,
        value,
        transactionID: charge.id.replace(/-/g, ''),
        endToEndId: charge.endToEndId,
      },
      company: { id: 'company_emulator', name: 'Loja Emulada' },
      account: {},
    };
  }

  return {
    name: 'woovi',
    get credentials() {
      return { publicKey: current().publicKey };
    },
    chargeId: () => randomUUID(),
    record,
    webhook(charge) {
      const text = JSON.stringify(body(charge));
      return { query: '', headers: { 'x-webhook-signature': signWoovi({ privateKey: current().privateKey, body: text }) }, body: text };
    },
    plays: ['refund', 'dispute'],
    retryScheduleMs: [10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000],
    extraRoutes: () => [
      {
        method: 'GET',
        path: '/api/v1/webhook/public-keys',
        handle: () => ({
          publicKeys: keys.map((k) => ({
            key_identifier: k.id,
            public_key: Buffer.from(k.publicKey).toString('base64'),
            is_current: k === current(),
          })),
        }),
      },
    ],
    extraControls: () => [
      {
        method: 'POST',
        path: '/_emulator/keys/rotate',
        handle: () => {
          keys.push(keyPair());
          return { key_identifier: current().id, publicKey: current().publicKey };
        },
      },
    ],
  };
}
