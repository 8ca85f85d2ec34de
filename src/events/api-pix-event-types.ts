import type { EventBase, Transaction } from './event-types.js';

/** The four events of the Central Bank's standard API Pix webhooks (`pixhook/api-pix`). */
export const apiPixEventNames = ['pix_received', 'pix_refund_updated', 'recurrence_updated', 'recurring_charge_updated'] as const;
export type ApiPixEventName = (typeof apiPixEventNames)[number];

/** `componentesValor`, each in integer cents: valor = original + saque + troco + multa + juros − abatimento − desconto. */
export interface PixValueComponents {
  original?: number;
  withdrawal?: number;
  change?: number;
  interest?: number;
  fine?: number;
  rebate?: number;
  discount?: number;
}

/** One received Pix (`Pix` in the standard). Amounts are integer cents, read exactly from the decimal string. */
export interface ReceivedPix {
  /** `endToEndId`: the payment's identity across the whole PIX system. */
  endToEndId: string;
  /** The charge (`cob`/`cobv`) the Pix paid; absent for a static QR code or a transfer to the key. */
  txid?: string;
  amountInCents: number;
  /** `chave`: the merchant's key the Pix was sent to. */
  key?: string;
  /** `horario`, as the PSP wrote it (ISO 8601). */
  paidAt: string;
  /** `infoPagador`: the payer's free text (untrusted; at most 140 characters by the standard). */
  payerInfo?: string;
  components?: PixValueComponents;
}

/** `processing` (EM_PROCESSAMENTO), `returned` (DEVOLVIDO), `not_returned` (NAO_REALIZADO). */
export type PixRefundStatus = 'processing' | 'returned' | 'not_returned';

/** One devolução of a received Pix, at one status. */
export interface PixRefundUpdate {
  /** The refund's id, chosen by the merchant when it asked for it (unique per original Pix). */
  id: string;
  /** The PIX return's id (`D…`). */
  rtrId: string;
  amountInCents: number;
  status: PixRefundStatus;
  /** The original Pix's endToEndId. */
  endToEndId: string;
  /** `natureza`: `ORIGINAL`, `RETIRADA`, `MED_OPERACIONAL`, `MED_FRAUDE`, `MED_PIX_AUTOMATICO`… */
  nature?: string;
  requestedAt?: string;
  settledAt?: string;
  /** `motivo` (why it was not made, typically). */
  reason?: string;
  description?: string;
}

/** A Pix Automático authorization (`/rec`, `RecNotification`). */
export interface RecurrenceUpdate {
  /** `idRec`. */
  id: string;
  /** `CRIADA`, `APROVADA`, `REJEITADA`, `EXPIRADA`, `CANCELADA`… as sent. */
  status: string;
  /** The last `atualizacao` entry's date, when given. */
  updatedAt?: string;
}

/** A Pix Automático recurring charge (`/cobr`, `CobRNotification`). */
export interface RecurringChargeUpdate {
  txid: string;
  /** `idRec`: the authorization the charge belongs to. */
  recurrenceId?: string;
  status: string;
  updatedAt?: string;
}

/**
 * What the four events share. `kind` is `transaction` and `transaction` is the charge as the payment book,
 * the journal and the console read it (id: the txid, else `e2e:<endToEndId>`; status `paid`, or `refunded`
 * once a refund is returned), so a standard Pix is judged by the same rules as the gateway family's.
 */
export interface ApiPixEventBase<N extends ApiPixEventName> extends Omit<EventBase<N>, 'variant'> {
  kind: 'transaction';
  /** Always `api-pix`: the Central Bank's standard body. */
  variant: 'api-pix';
  transaction: Transaction;
}

export interface PixReceivedEvent extends ApiPixEventBase<'pix_received'> {
  pix: ReceivedPix;
}

export interface PixRefundUpdatedEvent extends ApiPixEventBase<'pix_refund_updated'> {
  refund: PixRefundUpdate;
  /** The original Pix the refund returns (its own `devolucoes` left out). */
  pix: ReceivedPix;
}

export interface RecurrenceUpdatedEvent extends ApiPixEventBase<'recurrence_updated'> {
  recurrence: RecurrenceUpdate;
}

export interface RecurringChargeUpdatedEvent extends ApiPixEventBase<'recurring_charge_updated'> {
  recurringCharge: RecurringChargeUpdate;
}

export type ApiPixEvent = PixReceivedEvent | PixRefundUpdatedEvent | RecurrenceUpdatedEvent | RecurringChargeUpdatedEvent;
