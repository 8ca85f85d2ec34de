import {
  isTransferEventName,
  type JsonObject,
  type PayloadVariant,
  type PixCustomer,
  type PixEventName,
  type PixInfraction,
  type PixPayer,
  type PixRefund,
} from '../index.js';
import { mustBe } from '../shared/option-checks.js';
import { generateCnpj, generateCpf } from './brazilian-documents.js';
import { generateEndToEndId, pixParticipants } from './end-to-end-id.js';
import { pick, randomAlphanumerics, randomDigits, randomInt, randomSource } from './seeded-random.js';

/** A webhook body exactly as the gateway would send it, before serialization. */
export type PixPayload = JsonObject & { readonly event: PixEventName };

export interface PayloadOptions {
  /** `a` (`{event, timestamp, data}`), `b` (`{id, type, event, scope, transaction|transfer}`) or the `short` B form. Default `a`. */
  variant?: PayloadVariant;
  /** The transaction's or transfer's id. Default: generated. */
  id?: string;
  /** Integer cents. Default: generated between R$ 1,00 and R$ 999,99. */
  amountInCents?: number;
  /** Default: the status the event implies (`paid` for `transaction_paid`, `completed` for `transfer_completed` …). */
  status?: string;
  /** Makes every generated field reproducible (and fixes the default timestamp). */
  seed?: number;
  /** Variant B's top-level `id`. Default: the resource id, as the gateway's own samples do. */
  deliveryId?: string;
  /** Variant B's `scope`: `postback` (default) or `user`. */
  scope?: string;
  /** Variant A's `timestamp`, also the moment inside the endToEndId. Default: now (fixed when seeded). */
  timestamp?: string | Date;
  /** Given for a B transaction, it is sent as `netAmount` (as sibling brands do); A always carries it. */
  netAmountInCents?: number;
  /** Transfers always carry fees; a transaction carries `fees` only when this is given. */
  feesInCents?: number;
  endToEndId?: string;
  /** The charge's customer: always in A transactions, in B ones only when given (as sibling brands send it). */
  customer?: PixCustomer;
  /** Variant B transactions: who paid. */
  payer?: PixPayer;
  /** Transfers: the destination key. */
  pixKey?: string;
  /** Refund details (added by default to `transaction_refunded`). */
  refund?: PixRefund;
  /** MED dispute details (added by default to `transaction_infraction`, with a generated id). */
  infraction?: PixInfraction;
}

/** The status each event implies when none is given. */
export const defaultStatusOf: Readonly<Record<PixEventName, string>> = {
  transaction_created: 'pending',
  transaction_paid: 'paid',
  transaction_refunded: 'refunded',
  transaction_updated: 'paid',
  transaction_canceled: 'canceled',
  transaction_infraction: 'paid',
  transfer_created: 'queued',
  transfer_completed: 'completed',
  transfer_canceled: 'canceled',
  transfer_updated: 'processing',
};

// Seeded fixtures must not drift with the wall clock.
const seededEpoch = '2026-03-14T15:09:26.000Z';

const firstNames = ['Ana', 'Bruno', 'Camila', 'Diego', 'Fernanda', 'Gabriel', 'Juliana', 'Lucas', 'Mariana', 'Rafael'];
const lastNames = ['Silva', 'Santos', 'Oliveira', 'Souza', 'Rodrigues', 'Ferreira', 'Almeida', 'Costa', 'Gomes', 'Ribeiro'];

/**
 * Builds the body the gateway would send for `name`, in the chosen shape. Every generated field is
 * drawn in the same order whatever the variant, so A, B and short of one seed describe the same resource.
 */
export function buildPayload(name: PixEventName, options: PayloadOptions = {}): PixPayload {
  const random = randomSource(options.seed);
  const variant = options.variant ?? 'a';
  const transfer = isTransferEventName(name);
  const at = toDate(options.timestamp ?? (options.seed === undefined ? new Date() : seededEpoch));

  // Draw everything first, in a fixed order, then pick what the shape carries.
  const generatedId = `${transfer ? 'trf' : 'txn'}_${randomAlphanumerics(random, 20)}`;
  const generatedAmount = randomInt(random, 100, 99_999);
  const first = pick(random, firstNames);
  const surname = randomInt(random, 0, lastNames.length - 1);
  // Two different surnames, as Brazilian names usually carry (mother's, then father's).
  const second = (surname + randomInt(random, 1, lastNames.length - 1)) % lastNames.length;
  const last = `${lastNames[surname] as string} ${lastNames[second] as string}`;
  const cpf = generateCpf(random);
  const cnpj = generateCnpj(random);
  const participant = pick(random, pixParticipants);
  const branch = randomDigits(random, 4);
  const account = `${randomDigits(random, 7)}-${randomDigits(random, 1)}`;
  const generatedEndToEndId = generateEndToEndId({ ispb: participant.ispb, at, random });
  // Drawn last, so payloads of earlier versions keep every other generated field for a seed.
  const generatedInfractionId = `med_${randomAlphanumerics(random, 16)}`;

  const id = options.id ?? generatedId;
  const amountInCents = options.amountInCents ?? generatedAmount;
  const status = options.status ?? defaultStatusOf[name];
  const feesInCents = options.feesInCents ?? Math.min(amountInCents, Math.round(amountInCents * 0.0099));
  const netAmountInCents = options.netAmountInCents ?? amountInCents - feesInCents;
  const endToEndId = options.endToEndId ?? generatedEndToEndId;
  const fullName = `${first} ${last}`;
  const timestamp = at.toISOString();
  const deliveryId = options.deliveryId ?? id;
  const scope = options.scope ?? 'postback';

  if (transfer) {
    // Transfers usually pay a supplier: a CNPJ key.
    const pixKey = options.pixKey ?? cnpj;
    const settled = status === 'completed' || options.endToEndId !== undefined;
    if (variant === 'a') {
      const data = {
        id,
        status,
        amountInCents,
        netAmountInCents,
        fees: feesInCents,
        pixKey,
        ...(settled && { endToEndId }),
      };
      return { event: name, timestamp, data };
    }
    if (variant === 'short') return { id: deliveryId, type: 'transfer', event: name, transfer: { id, amount: amountInCents, status } };
    const creditorAccount = {
      ispb: participant.ispb,
      bank: participant.bank,
      branch,
      accountNumber: account,
      accountType: 'CHECKING',
      name: `${last.split(' ')[0] as string} Comércio Ltda`,
      document: cnpj,
    };
    return {
      id: deliveryId,
      type: 'transfer',
      event: name,
      scope,
      transfer: {
        id,
        amount: amountInCents,
        status,
        fees: feesInCents,
        pixKey,
        ...(settled && { pix: { endToEndId, creditorAccount } }),
      },
    };
  }

  const paid =
    status === 'paid' ||
    status === 'refunded' ||
    name === 'transaction_paid' ||
    name === 'transaction_refunded' ||
    name === 'transaction_infraction' ||
    options.endToEndId !== undefined ||
    options.payer !== undefined;
  const refunded = options.refund !== undefined || name === 'transaction_refunded';
  const disputed = options.infraction !== undefined || name === 'transaction_infraction';
  const infraction: PixInfraction = options.infraction ?? {
    id: generatedInfractionId,
    status: 'open',
    reason: 'fraud',
    amountInCents,
    openedAt: timestamp,
  };
  const infractionOut = dropUndefined({
    id: infraction.id,
    status: infraction.status,
    reason: infraction.reason,
    amount: infraction.amountInCents,
    openedAt: infraction.openedAt,
  });
  const refund: PixRefund = options.refund ?? {
    amountInCents,
    reason: 'Devolução solicitada pelo cliente',
    refundedAt: timestamp,
  };

  if (variant === 'a') {
    const customer: PixCustomer = options.customer ?? {
      name: fullName,
      email: `${first}.${last.split(' ')[0] as string}@example.com.br`.toLowerCase(),
      document: cpf,
    };
    const data = {
      id,
      status,
      amountInCents,
      netAmountInCents,
      ...(options.feesInCents !== undefined && { fees: options.feesInCents }),
      customer,
      ...(options.endToEndId !== undefined && { endToEndId: options.endToEndId }),
      ...(refunded && { refund }),
      ...(disputed && { infraction: infractionOut }),
    };
    return { event: name, timestamp, data };
  }
  if (variant === 'short') return { id: deliveryId, type: 'transaction', event: name, transaction: { id, amount: amountInCents, status } };

  const payer = options.payer ?? {
    name: fullName,
    document: cpf,
    bank: participant.bank,
    branch,
    accountType: 'CHECKING',
    accountNumber: account,
  };
  const payerInfo = {
    bank: payer.bank,
    name: payer.name,
    branch: payer.branch,
    document: payer.document,
    account_type: payer.accountType,
    account_number: payer.accountNumber,
  };
  const refundB = { id: refund.id, amount: refund.amountInCents, reason: refund.reason, refundedAt: refund.refundedAt };
  return {
    id: deliveryId,
    type: 'transaction',
    event: name,
    scope,
    transaction: {
      id,
      amount: amountInCents,
      status,
      ...(options.netAmountInCents !== undefined && { netAmount: options.netAmountInCents }),
      ...(options.feesInCents !== undefined && { fees: options.feesInCents }),
      ...(options.customer !== undefined && { customer: options.customer }),
      ...(paid && { pix: { endToEndId, payerInfo: dropUndefined(payerInfo) } }),
      ...(refunded && { refund: dropUndefined(refundB) }),
      ...(disputed && { infraction: infractionOut }),
    },
  };
}

function toDate(value: string | Date, name = 'timestamp'): Date {
  const date = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(date.getTime())) throw mustBe(name, 'a valid date or ISO 8601 timestamp', value);
  return date;
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
