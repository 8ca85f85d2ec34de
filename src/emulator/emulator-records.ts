import type { PixInfraction, PixPayer, PixRefund } from '../index.js';
import type { ChargeRequestCustomer, ChargeRequestItem, EmulatorPixKeyType } from './request-schemas.js';
import type { DeliveryAttempt } from '../testing/index.js';

export type ChargeStatus = 'pending' | 'paid' | 'canceled' | 'refunded' | 'expired';
export type TransferStatus = 'queued' | 'processing' | 'completed' | 'refused';

export interface ChargeRecord {
  id: string;
  status: ChargeStatus;
  amountInCents: number;
  fees: number;
  netAmountInCents: number;
  customer: ChargeRequestCustomer;
  description?: string;
  items?: ChargeRequestItem[];
  metadata?: Record<string, unknown>;
  postbackUrl?: string;
  pix: { emv: string; qrCode: string; endToEndId?: string; payerInfo?: PixPayer };
  refund?: PixRefund;
  createdAt: string;
  updatedAt: string;
  paidAt?: string;
  /** Every payment received, oldest first: a second one (`pay` on a paid charge) is a duplicate payment. */
  payments?: ChargePayment[];
  /** The amount the charge asked for, when a payment of another amount was accepted (`amountInCents` then holds what was paid). */
  requestedAmountInCents?: number;
  /** MED disputes opened by `POST /_emulator/transactions/:id/infraction`. */
  infractions?: PixInfraction[];
}

/** One payment of a charge, as `pay` made it. */
export interface ChargePayment {
  endToEndId: string;
  amountInCents: number;
  payer: PixPayer;
  paidAt: string;
  /** The status the charge had when it was paid (`expired` or `canceled`: paid after expiry). */
  paidWhen: ChargeStatus;
}

export interface TransferRecord {
  id: string;
  status: TransferStatus;
  amountInCents: number;
  fees: number;
  netAmountInCents: number;
  pixKey: string;
  pixKeyType: EmulatorPixKeyType;
  description?: string;
  postbackUrl?: string;
  idempotencyKey: string;
  endToEndId?: string;
  failureReason?: string;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookRecord {
  id: string;
  url: string;
  events: string[];
  status: 'active';
  createdAt: string;
  updatedAt: string;
  totalDeliveries: number;
  successfulDeliveries: number;
  /** Percent of settled deliveries that were confirmed. */
  successRate: number;
  averageResponseTimeMs: number;
  lastDeliveryAt?: string;
}

export interface DeliveryRecord {
  id: string;
  event: string;
  url: string;
  /** `user` (a registered webhook) or `postback` (the resource's postbackUrl). */
  scope: 'user' | 'postback';
  webhookId?: string;
  resourceId: string;
  /** The exact body sent (and signed). */
  body: string;
  /** `pending` while attempts are running; `gave_up` after the last one failed. */
  state: 'pending' | 'delivered' | 'gave_up';
  /** Undefined while attempts are still running. */
  delivered?: boolean;
  /** ISO 8601, when delivered or given up. */
  settledAt?: string;
  /** Set on a resend (`POST /_emulator/deliveries/:id/redeliver`): the delivery it repeats. */
  redeliveryOf?: string;
  attempts: EmulatorDeliveryAttempt[];
}

/** One attempt: its answer (`status`, `responseBody`) or why none came (`error`), and the fault that caused it, if any. */
export interface EmulatorDeliveryAttempt extends DeliveryAttempt {
  fault?: { id: string; action: 'fail' | 'timeout' | 'drop' | 'delay' };
}

/** One request as the emulator saw it (no credentials, no bodies). */
export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  idempotencyKey?: string;
}
