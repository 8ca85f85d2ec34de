import type { PixEventName } from './event-names.js';

// A money event's status is read once, here, strictly: trimmed, case-folded, and mapped from the synonyms
// gateways are seen to send. Every rule after this (dedupe key, payment book, handlers) sees one spelling.

/** Synonyms of a charge's statuses, as gateways and PIX itself spell them (after trimming and case-folding). */
export const transactionStatusSynonyms: Readonly<Record<string, string>> = Object.freeze({
  paid: 'paid',
  approved: 'paid',
  completed: 'paid',
  complete: 'paid',
  confirmed: 'paid',
  succeeded: 'paid',
  settled: 'paid',
  pago: 'paid',
  aprovado: 'paid',
  concluida: 'paid',
  concluída: 'paid',
  pending: 'pending',
  waiting_payment: 'pending',
  pendente: 'pending',
  ativa: 'pending',
  canceled: 'canceled',
  cancelled: 'canceled',
  cancelado: 'canceled',
  refunded: 'refunded',
  estornado: 'refunded',
  devolvido: 'refunded',
  expired: 'expired',
  expirado: 'expired',
});

/** What the reader made of a status: the one spelling, and, when the event name overrode it, what was sent. */
interface ReadStatus {
  status: string;
  /** Set when the stated status was not the canonical spelling, or could not be read as what the event name states. */
  note?: string;
}

/**
 * The status of a `name` event as pixhook reads it. A transfer's status is trimmed and case-folded. A
 * charge's is mapped through `transactionStatusSynonyms`. A `transaction_paid` is always judged as a
 * payment: a status that cannot be read as paid (unknown, or another status) is read as `paid`, so every
 * check (amount, payer, stale status, second payment) applies; the event carries a warning saying so.
 */
export function readStatus(name: PixEventName, stated: string): ReadStatus {
  const folded = stated.trim().toLowerCase();
  if (name.startsWith('transfer_'))
    return folded === stated ? { status: stated } : { status: folded, note: 'read as ' + JSON.stringify(folded) };
  const known = Object.hasOwn(transactionStatusSynonyms, folded) ? transactionStatusSynonyms[folded] : undefined;
  if (name === 'transaction_paid' && known !== 'paid') {
    return { status: 'paid', note: 'transaction_paid states a status that is not paid; judged as a payment (read as "paid")' };
  }
  const status = known ?? folded;
  return status === stated ? { status } : { status, note: 'read as ' + JSON.stringify(status) };
}
