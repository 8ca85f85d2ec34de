import type { PixEvent } from '../events/event-types.js';
import { escapePart } from '../events/key-part.js';
import { isForwardTransition } from '../events/status-order.js';
import { sameDocument } from './document-digits.js';
import type { Expectation } from './payment-book.js';
import type { PolicyReason, Violation } from '../events/violation.js';
import type { ResolvedPolicy } from './payment-policy.js';

/** One payment the book applied to a charge: how a second one is told apart. */
export interface PaymentFact {
  endToEndId?: string;
  amountInCents: number;
  /** The payer's document as the event wrote it (digits, masked positions kept), when it had one. */
  payer?: string;
}

/** One refund the book applied to a charge: its own id (or when/why it happened) and its amount. */
export interface RefundFact {
  refundId?: string;
  amountInCents: number;
}

/**
 * A money fact an event states, whatever channel or payload shape carried it: a payment (identified by its
 * endToEndId) or a refund (by the refund's id). Generic on purpose: any resource whose payments carry an id fits.
 */
export interface MoneyFact {
  kind: 'payment' | 'refund';
  id?: string;
  amountInCents: number;
  /** A payment's payer document: two payments without a common id but with different payers are two payments. */
  payer?: string;
}

/** What the policy reads of a resource: only what was applied (held events do not count until released). */
export interface PolicyView {
  /** The latest applied status; undefined until an event was applied. */
  status?: string;
  expected?: Expectation;
  payments: readonly PaymentFact[];
}

export interface PolicyInput {
  /** The resource as the book holds it; undefined when the book never saw it. */
  resource: PolicyView | undefined;
  event: PixEvent;
  /** Epoch milliseconds of receipt: the payment time when the event carries no readable timestamp. */
  receivedAt: number;
  /** True once the book holds any expectation (stored, so every instance agrees). */
  expectationsInUse: boolean;
  /** False when the gateway contradicted the event (`confirm`). */
  confirmed?: boolean;
  policy: ResolvedPolicy;
  /** `moneyFactOf(event)`, when the caller read it already (undefined: read here). */
  fact?: MoneyFact | undefined;
}

/**
 * The violations `event` commits against the book, in a stable order. Pure: the same book and event
 * always give the same answer, so every backend (memory, a Redis script's caller, a Postgres
 * transaction) decides alike.
 */
export function evaluatePolicy(input: PolicyInput): Violation[] {
  const { resource, event, policy } = input;
  const violations: Violation[] = [];
  const current = event.kind === 'transaction' ? event.transaction : event.transfer;
  const from = resource?.status;

  // Checked by the receiver against its `keys`: money sent to another key is not this merchant's.
  if ((event.name === 'pix_received' || event.name === 'pix_refund_updated') && event.keyKnown === false) {
    add(
      violations,
      policy,
      'unknown_key',
      "A Pix to a key (chave) that is not one of the receiver's `keys`, or to none: not this merchant's money.",
    );
  }

  // A dispute, or a refund still processing or not made, is a new fact about a paid charge, not a status change.
  if (from !== undefined && statesStatus(event) && movesBackwards(event.kind, from, current.status)) {
    add(
      violations,
      policy,
      'stale_status',
      `${event.name} states ${quoted(current.status)} after ${quoted(from)}: it would move the ${event.kind} backwards.`,
    );
  }

  if (event.kind === 'transaction' && statesPayment(event)) {
    const transaction = event.transaction;
    const payment = (input.fact ?? moneyFactOf(event)) as MoneyFact;
    const payments = resource?.payments;
    if (payments !== undefined && payments.length > 0 && !payments.some((earlier) => samePayment(earlier, payment))) {
      add(
        violations,
        policy,
        'duplicate_payment',
        'A second, different payment on a charge already paid (another endToEndId, or another amount or payer without one).',
      );
    }
    if (newlyPaid(from)) {
      const expected = resource?.expected;
      if (expected === undefined) {
        if (input.expectationsInUse) add(violations, policy, 'unknown_charge', 'A payment for a charge this book never expected.');
      } else {
        if (transaction.amountInCents !== expected.amountInCents) {
          add(
            violations,
            policy,
            'amount_mismatch',
            `Paid ${String(transaction.amountInCents)} cents; ${String(expected.amountInCents)} cents were expected.`,
          );
        }
        if (expected.payerDocument !== undefined && sameDocument(expected.payerDocument, transaction.payer?.document) === false) {
          add(violations, policy, 'payer_mismatch', "The payer's document is not the one expected.");
        }
        if (expected.expiresAt !== undefined && from !== 'expired') {
          const paidAt = paymentTime(event, input.receivedAt);
          if (paidAt > Date.parse(expected.expiresAt)) {
            add(
              violations,
              policy,
              'paid_after_expiry',
              `Paid at ${new Date(paidAt).toISOString()}, after the charge expired at ${expected.expiresAt}.`,
            );
          }
        }
      }
      if (from === 'expired') add(violations, policy, 'paid_after_expiry', 'Paid after the gateway reported the charge expired.');
    }
  }

  if (input.confirmed === false)
    add(violations, policy, 'not_confirmed', "The gateway's record does not confirm this event's status and amount.");
  return violations;
}

function add(violations: Violation[], policy: ResolvedPolicy, reason: PolicyReason, message: string): void {
  violations.push({ reason, action: policy[reason], message });
}

/**
 * A transaction event that says the charge is paid, other than a dispute and a devolução's update (which
 * restate `paid` about a Pix already received).
 */
export function statesPayment(event: PixEvent): boolean {
  return (
    event.kind === 'transaction' &&
    event.transaction.status === 'paid' &&
    event.name !== 'transaction_infraction' &&
    event.name !== 'pix_refund_updated'
  );
}

/**
 * False for an event whose status restates the charge's rather than moving it: a dispute, and an API Pix
 * devolução still processing or not made (the charge stays `paid`; only a returned one moves it to `refunded`).
 */
export function statesStatus(event: PixEvent): boolean {
  if (event.name === 'transaction_infraction') return false;
  return event.name !== 'pix_refund_updated' || event.refund.status === 'returned';
}

/**
 * The money fact `event` states: a payment, a refund, or none (a dispute never stands in for either). An API
 * Pix devolução is one fact per status (`processing`, then `returned` or `not_returned`), identified by its
 * Pix's endToEndId and its id (unique only within its Pix), never taken for the Pix's own payment.
 */
export function moneyFactOf(event: PixEvent): MoneyFact | undefined {
  if (event.kind !== 'transaction' || event.name === 'transaction_infraction') return undefined;
  if (event.name === 'pix_refund_updated') {
    const { endToEndId, id, status, amountInCents } = event.refund;
    return { kind: 'refund', id: `e2e=${escapePart(endToEndId)}:ri=${escapePart(id)}:${status}`, amountInCents };
  }
  const { status, endToEndId, amountInCents, refund } = event.transaction;
  if (status === 'paid') {
    const fact: MoneyFact =
      endToEndId === undefined ? { kind: 'payment', amountInCents } : { kind: 'payment', id: endToEndId, amountInCents };
    const payer = event.transaction.payer?.document;
    if (typeof payer === 'string' && payer.trim() !== '') fact.payer = documentDigits(payer);
    return fact;
  }
  if (status !== 'refunded') return undefined;
  // The same identity as the dedupe key's refund parts: its id, else when it happened, else why.
  const id =
    refund?.id !== undefined
      ? 'ri=' + refund.id
      : refund?.refundedAt !== undefined
        ? 'rt=' + refund.refundedAt
        : refund?.reason !== undefined
          ? 'rr=' + refund.reason
          : undefined;
  const amount = refund?.amountInCents ?? amountInCents;
  return id === undefined ? { kind: 'refund', amountInCents: amount } : { kind: 'refund', id, amountInCents: amount };
}

/**
 * One fact when both carry an id and it is equal; without one on either side, when the amount is equal and
 * their payers (when both name one) can be the same document.
 */
export function sameFact(a: MoneyFact, b: MoneyFact): boolean {
  if (a.kind !== b.kind) return false;
  if (a.id !== undefined && b.id !== undefined) return a.id === b.id;
  if (a.amountInCents !== b.amountInCents) return false;
  return a.payer === undefined || b.payer === undefined || couldBeOneDocument(a.payer, b.payer);
}

/** `sameFact(paymentFact(known), fact)`, without making the money fact. */
export function samePayment(known: PaymentFact, fact: MoneyFact): boolean {
  if (fact.kind !== 'payment') return false;
  if (known.endToEndId !== undefined && fact.id !== undefined) return known.endToEndId === fact.id;
  if (known.amountInCents !== fact.amountInCents) return false;
  return known.payer === undefined || fact.payer === undefined || couldBeOneDocument(known.payer, fact.payer);
}

/** A stored payment as a money fact. */
export function paymentFact(payment: PaymentFact): MoneyFact {
  const fact: MoneyFact = { kind: 'payment', amountInCents: payment.amountInCents };
  if (payment.endToEndId !== undefined) fact.id = payment.endToEndId;
  if (payment.payer !== undefined) fact.payer = payment.payer;
  return fact;
}

/**
 * True when `to` is progress from `from`. A payment after `expired` is progress too: the money arrived, and
 * `paid_after_expiry` (not `stale_status`) is the rule that judges it.
 */
export function movesForward(kind: 'transaction' | 'transfer', from: string, to: string): boolean {
  if (kind === 'transaction' && from === 'expired' && to === 'paid') return true;
  return kind === 'transaction'
    ? isForwardTransition({ kind: 'transaction', from, to }) === true
    : isForwardTransition({ kind: 'transfer', from, to }) === true;
}

// The first statuses: a transfer `created` and `queued` are two words for one step, not a conflict.
const firstStatuses: ReadonlySet<string> = new Set(['pending', 'created', 'queued']);

/** A different status that the status order puts behind (or beside, for two final states) the current one. */
function movesBackwards(kind: 'transaction' | 'transfer', from: string, to: string): boolean {
  if (to === from || movesForward(kind, from, to) || (firstStatuses.has(from) && firstStatuses.has(to))) return false;
  const forward =
    kind === 'transaction' ? isForwardTransition({ kind: 'transaction', from, to }) : isForwardTransition({ kind: 'transfer', from, to });
  return forward === false;
}

/** True when `paid` would be news to a charge at `from`: never applied, before `paid` or expired (an unknown status counts). */
function newlyPaid(from: string | undefined): boolean {
  if (from === undefined || from === 'expired') return true;
  return from !== 'paid' && isForwardTransition({ kind: 'transaction', from, to: 'paid' }) !== false;
}

/** A status from the payload, safe in a message: quoted, escaped, and cut short. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value);
}

/** The event's own timestamp when readable (a late retry keeps it), else the moment of receipt. */
function paymentTime(event: PixEvent, receivedAt: number): number {
  const stated = event.timestamp === undefined ? Number.NaN : Date.parse(event.timestamp);
  return Number.isFinite(stated) ? stated : receivedAt;
}

/** Two documents as events wrote them (separators gone): one length, and equal wherever neither is masked. */
function couldBeOneDocument(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as string;
    const y = b[i] as string;
    if (x !== y && /\d/.test(x) && /\d/.test(y)) return false;
  }
  return true;
}

/** A document as events write it, its separators (spaces, `.`, `-`, `/`) gone; most are digits only, and kept as they are. */
function documentDigits(document: string): string {
  for (let i = 0; i < document.length; i++) {
    const code = document.charCodeAt(i);
    if (code < 48 || code > 57) return document.replace(/[\s.\-/]/g, '');
  }
  return document;
}
