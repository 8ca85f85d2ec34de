import type { PspCharge, PspProfile } from './psp-profile.js';
import { credential, randomId, reais, sameCredential } from './psp-credentials.js';

const minute = 60_000;
const hour = 60 * minute;

/** A payment's status, and the webhook's event, for each state the emulator holds. */
const statuses = { pending: 'PENDING', paid: 'RECEIVED', refunded: 'REFUNDED' } as const;
const events = { pending: 'PAYMENT_CREATED', paid: 'PAYMENT_RECEIVED', refunded: 'PAYMENT_REFUNDED' } as const;
/** A chargeback's stages (the payment's status; the event is `PAYMENT_` and the stage): received, in dispute, won. */
const chargebackStages = ['CHARGEBACK_REQUESTED', 'CHARGEBACK_DISPUTE', 'AWAITING_CHARGEBACK_REVERSAL'] as const;

/** Asaas's date-time as its webhooks write it: `2024-11-06 18:59:27`. */
const asaasTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/**
 * Asaas (docs.asaas.com: sobre-os-webhooks, penalizacao-de-filas): a static token in `asaas-access-token`,
 * the payment in the body (`PAYMENT_RECEIVED` for a Pix, optional fields `null`), `GET /v3/payments/{id}`
 * with the API key in `access_token`. Retries after 30 s, 1, 3.5, 5, 15, 25 min, hourly ×5, 2 h ×2, 3 h:
 * 15 attempts, and 15 failures in a row pause the queue.
 */
export function asaasProfile(given: Readonly<Record<string, string>>): PspProfile {
  const credentials = { token: credential(given, 'token'), apiKey: credential(given, 'apiKey', '$aact_') };

  function record(charge: PspCharge): Record<string, unknown> {
    const paid = charge.status !== 'pending';
    const cents = paid ? (charge.paidInCents ?? charge.amountInCents) : charge.amountInCents;
    const day = (iso: string | undefined) => iso?.slice(0, 10) ?? null;
    return {
      object: 'payment',
      id: charge.id,
      dateCreated: day(charge.createdAt),
      customer: 'cus_000000000001',
      paymentLink: null,
      value: reais(cents),
      netValue: reais(cents - Math.min(cents, 99)),
      originalValue: null,
      description: null,
      billingType: 'PIX',
      status: charge.status === 'disputed' ? chargebackStages[charge.disputeStage ?? 0] : statuses[charge.status],
      pixTransaction: null,
      dueDate: day(charge.createdAt),
      paymentDate: paid ? day(charge.paidAt) : null,
      confirmedDate: paid ? day(charge.paidAt) : null,
      clientPaymentDate: paid ? day(charge.paidAt) : null,
      externalReference: null,
      deleted: false,
      refunds: null,
    };
  }

  return {
    name: 'asaas',
    credentials,
    chargeId: () => `pay_${randomId()}`,
    recordPath: /^\/v3\/payments\/([^/]+)$/,
    authorized: (headers) => sameCredential(headers['access_token'], credentials.apiKey),
    record,
    webhook: (charge, sequence, now) => ({
      query: '',
      headers: { 'asaas-access-token': credentials.token },
      body: JSON.stringify({
        id: `evt_${randomId(16)}&${String(sequence)}`,
        event: charge.status === 'disputed' ? `PAYMENT_${chargebackStages[charge.disputeStage ?? 0]!}` : events[charge.status],
        dateCreated: asaasTime(now),
        payment: record(charge),
      }),
    }),
    // PAYMENT_REFUNDED, and a chargeback (read as transaction_infraction) in its three stages.
    plays: ['refund', 'dispute'],
    disputeStages: chargebackStages.length,
    retryScheduleMs: [
      30_000,
      minute,
      3.5 * minute,
      5 * minute,
      15 * minute,
      25 * minute,
      ...Array(5).fill(hour),
      2 * hour,
      2 * hour,
      3 * hour,
    ],
    pauseAfterFailures: 15,
  };
}
