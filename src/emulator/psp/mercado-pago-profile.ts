import { randomInt } from 'node:crypto';
import { signMercadoPago } from '../../sources/mercado-pago/sign.js';
import type { PspCharge, PspProfile } from './psp-profile.js';
import { credential, reais, sameCredential } from './psp-credentials.js';

const minute = 60_000;

/**
 * Mercado Pago (mercadopago/devsite-docs guides/additional-content/your-integrations/webhooks.en.md): the
 * body names only the payment (`data.id`), `?data.id=…&type=payment` on the URL, `x-signature: ts=…,v1=…`
 * over the manifest and `x-request-id`, signed by the sources' own signer; the payment is read with
 * `GET /v1/payments/{id}` and the access token as Bearer. Retries: "every 15 minutes, then at longer
 * intervals" — the emulator retries after 15, 15, 15 minutes, then 1, 2 and 4 hours (the longer intervals
 * are its own choice: the docs give none).
 */
export function mercadoPagoProfile(given: Readonly<Record<string, string>>): PspProfile {
  const credentials = { secret: credential(given, 'secret'), accessToken: credential(given, 'accessToken', 'APP_USR-') };
  const bearer = `Bearer ${credentials.accessToken}`;

  function record(charge: PspCharge): Record<string, unknown> {
    // A refund or a chargeback follows the payment: its amount and dates stay.
    const paid = charge.status !== 'pending';
    const updated = charge.paidAt ?? charge.createdAt;
    const status = { pending: 'pending', paid: 'approved', refunded: 'refunded', disputed: 'charged_back' }[charge.status];
    return {
      id: Number(charge.id),
      status,
      status_detail: { pending: 'pending_waiting_transfer', paid: 'accredited', refunded: 'refunded', disputed: 'settled' }[charge.status],
      payment_method_id: 'pix',
      payment_type_id: 'bank_transfer',
      currency_id: 'BRL',
      transaction_amount: reais(paid ? (charge.paidInCents ?? charge.amountInCents) : charge.amountInCents),
      transaction_amount_refunded: charge.status === 'refunded' ? reais(charge.paidInCents ?? charge.amountInCents) : 0,
      date_created: charge.createdAt,
      date_approved: paid ? charge.paidAt : null,
      date_last_updated: updated,
      external_reference: null,
      payer: { email: 'test_user@testuser.com', identification: { type: 'CPF', number: charge.payerDocument } },
      point_of_interaction: {
        type: 'PIX',
        transaction_data: { qr_code: '00020126…', ...(charge.endToEndId !== undefined && { e2e_id: charge.endToEndId }) },
      },
    };
  }

  return {
    name: 'mercado-pago',
    credentials,
    chargeId: (sequence) => String(10_000_000_000 + sequence * 1000 + randomInt(1000)),
    recordPath: /^\/v1\/payments\/([^/]+)$/,
    authorized: (headers) => sameCredential(headers.authorization, bearer),
    record,
    async webhook(charge, sequence, now) {
      const signed = await signMercadoPago({ secret: credentials.secret, dataId: charge.id, ts: Math.floor(now / 1000) });
      const body = {
        id: sequence,
        live_mode: false,
        type: 'payment',
        date_created: new Date(now).toISOString(),
        user_id: 44444,
        api_version: 'v1',
        action: charge.status === 'pending' ? 'payment.created' : 'payment.updated',
        data: { id: charge.id },
      };
      return { query: signed.query, headers: signed.headers, body: JSON.stringify(body) };
    },
    // A refund (`refunded`) and a chargeback (`charged_back`): the same id-only notification, the fetched state tells.
    plays: ['refund', 'dispute'],
    retryScheduleMs: [15 * minute, 15 * minute, 15 * minute, 60 * minute, 120 * minute, 240 * minute],
  };
}
