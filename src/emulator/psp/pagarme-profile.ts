import type { PspCharge, PspProfile } from './psp-profile.js';
import { credential, randomId, sameCredential } from './psp-credentials.js';

const minute = 60_000;

/**
 * Pagar.me v5 (docs.pagar.me/docs/webhooks): an unsigned hook `{ id: "hook_…", type: "charge.paid", data }`
 * to the registered URL (which carries the merchant's URL secret), the charge read with
 * `GET /core/v5/charges/{id}` and the secret key as HTTP Basic user. The pages found document no retry
 * schedule: the emulator retries after 1, 5, 15 and 60 minutes (its own choice, scaled by `timeFactor`).
 */
export function pagarmeProfile(given: Readonly<Record<string, string>>): PspProfile {
  const credentials = { secretKey: credential(given, 'secretKey', 'sk_test_') };
  const basic = `Basic ${Buffer.from(`${credentials.secretKey}:`).toString('base64')}`;

  function record(charge: PspCharge): Record<string, unknown> {
    const paid = charge.status !== 'pending';
    const cents = charge.paidInCents ?? charge.amountInCents;
    return {
      id: charge.id,
      code: `ORDER-${charge.id.slice(3, 9)}`,
      amount: charge.amountInCents,
      ...(paid && { paid_amount: charge.paidInCents ?? charge.amountInCents, paid_at: charge.paidAt }),
      // A refund cancels the charge with its amount in canceled_amount; a chargeback is `chargedback`.
      status: { pending: 'pending', paid: 'paid', refunded: 'canceled', disputed: 'chargedback' }[charge.status],
      ...(charge.status === 'refunded' && { canceled_amount: cents }),
      currency: 'BRL',
      payment_method: 'pix',
      created_at: charge.createdAt,
      updated_at: charge.paidAt ?? charge.createdAt,
      customer: { id: 'cus_emulator0001', name: 'Pagador Emulado', document: charge.payerDocument, type: 'individual' },
      last_transaction: {
        id: `tran_${charge.id.slice(3)}`,
        transaction_type: 'pix',
        amount: charge.amountInCents,
        status: paid ? 'paid' : 'waiting_payment',
        success: paid,
        ...(paid && charge.endToEndId !== undefined && { end_to_end_id: charge.endToEndId }),
      },
    };
  }

  return {
    name: 'pagarme',
    credentials,
    chargeId: () => `ch_${randomId()}`,
    recordPath: /^\/core\/v5\/charges\/([^/]+)$/,
    authorized: (headers) => sameCredential(headers.authorization, basic),
    record,
    webhook: (charge, sequence, now) => ({
      query: '',
      headers: {},
      body: JSON.stringify({
        id: `hook_${randomId()}${String(sequence)}`,
        account: { id: 'acc_emulator0001', name: 'Loja Emulada' },
        type: `charge.${{ pending: 'pending', paid: 'paid', refunded: 'refunded', disputed: 'chargedback' }[charge.status]}`,
        created_at: new Date(now).toISOString(),
        data: { id: charge.id, amount: charge.amountInCents, status: record(charge)['status'], payment_method: 'pix' },
      }),
    }),
    plays: ['refund', 'dispute'],
    retryScheduleMs: [minute, 5 * minute, 15 * minute, 60 * minute],
  };
}
