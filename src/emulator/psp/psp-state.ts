import { RequestError } from '../http-io.js';
import type { PspDeliveries, PspDelivery } from './psp-deliveries.js';
import type { PspCharge, PspProfile, PspWebhook } from './psp-profile.js';

/** How the pay control pays: another amount, and the PSP's faults around the payment's webhook. */
export interface PspPayment {
  /** What the payer paid, in cents (default: the charge's amount). */
  amountInCents?: number | undefined;
  /** The payment's webhook is sent twice, as PSPs resend it (Mercado Pago's `approved` two hours later). */
  duplicate?: boolean | undefined;
  /** After the payment's webhook, one telling `pending` (a retried `waiting_payment`, pagarme-js #362). */
  latePending?: boolean | undefined;
}

interface StateParts {
  profile: PspProfile;
  deliveries: PspDeliveries;
  now: () => number;
  webhookUrl: () => string | undefined;
}

let endToEndSequence = 0;

/** The charges of one run, created and paid through the controls; each state change sent to the registered URL. */
export function createPspState({ profile, deliveries, now, webhookUrl }: StateParts) {
  const charges = new Map<string, PspCharge>();
  let chargeSequence = 0;
  let eventSequence = 0;
  /** The last webhook sent for each charge: what a duplicate sends again. */
  const lastWebhook = new Map<string, PspWebhook>();

  function find(id: string): PspCharge {
    const charge = charges.get(id);
    if (!charge) throw new RequestError(404, 'NOT_FOUND', `No charge with id ${id}.`);
    return charge;
  }

  async function notify(charge: PspCharge, kind: PspDelivery['kind']): Promise<void> {
    const url = webhookUrl();
    if (url === undefined) return;
    const told = kind === 'late-pending' ? { ...charge, status: 'pending' as const } : charge;
    // A duplicate is the same webhook sent again: the same body, the same signature (the profiles draw a fresh
    // event id, request id or timestamp on every call, so it is the last one sent for this charge, kept).
    const kept = kind === 'duplicate' ? lastWebhook.get(charge.id) : undefined;
    const webhook = kept ?? (await profile.webhook(told, ++eventSequence, now()));
    lastWebhook.set(charge.id, webhook);
    deliveries.send(url, charge.id, kind, webhook);
  }

  return {
    create(input: { amountInCents: number; payerDocument?: string | undefined }): PspCharge {
      const charge: PspCharge = {
        id: profile.chargeId(++chargeSequence),
        amountInCents: input.amountInCents,
        status: 'pending',
        payerDocument: input.payerDocument ?? '19119119100',
        createdAt: new Date(now()).toISOString(),
      };
      charges.set(charge.id, charge);
      return { ...charge };
    },
    async pay(id: string, payment: PspPayment = {}): Promise<PspCharge> {
      const charge = find(id);
      if (charge.status === 'paid') throw new RequestError(422, 'ALREADY_PAID', `Charge ${id} is paid already.`);
      charge.status = 'paid';
      charge.paidInCents = payment.amountInCents ?? charge.amountInCents;
      charge.paidAt = new Date(now()).toISOString();
      charge.endToEndId = `E00000000${new Date(now()).toISOString().replace(/\D/g, '').slice(0, 12)}${String(++endToEndSequence).padStart(11, '0')}`;
      await notify(charge, 'paid');
      if (payment.duplicate === true) await notify(charge, 'duplicate');
      if (payment.latePending === true) await notify(charge, 'late-pending');
      return { ...charge };
    },
    /**
     * Refunds or disputes a paid charge (where the profile plays it) and sends its webhook. A disputed
     * charge is disputed again only where the profile plays more stages: the next one's webhook.
     */
    async after(id: string, fact: 'refund' | 'dispute'): Promise<PspCharge> {
      const charge = find(id);
      if (!profile.plays.includes(fact)) throw new RequestError(422, 'NOT_PLAYED', `The ${profile.name} profile does not play a ${fact}.`);
      const stage = charge.disputeStage ?? 0;
      if (fact === 'dispute' && charge.status === 'disputed' && stage + 1 < (profile.disputeStages ?? 1)) charge.disputeStage = stage + 1;
      else if (charge.status !== 'paid') throw new RequestError(422, 'NOT_PAID', `Charge ${id} is ${charge.status}, not paid.`);
      else {
        charge.status = fact === 'refund' ? 'refunded' : 'disputed';
        if (fact === 'dispute') charge.disputeStage = 0;
      }
      await notify(charge, fact);
      return { ...charge };
    },
    /** The charge as the confirmation API returns it, or undefined. */
    record(id: string): Record<string, unknown> | undefined {
      const charge = charges.get(id);
      return charge && profile.record(charge);
    },
    charges: (): PspCharge[] => [...charges.values()].map((c) => ({ ...c })),
  };
}

export type PspState = ReturnType<typeof createPspState>;
