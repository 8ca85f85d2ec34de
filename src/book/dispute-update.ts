import type { PspTransactionEvent, TransactionEvent } from '../events/event-types.js';
import type { Dispute } from './payment-book.js';

// MED providers close a dispute with one of these; any other status (or none) keeps it open, so an
// unfamiliar word errs toward an alert rather than silence.
const closingStatuses: ReadonlySet<string> = new Set([
  'closed',
  'resolved',
  'rejected',
  'accepted',
  'canceled',
  'cancelled',
  'refunded',
  'finished',
  'concluded',
]);

export function isOpenDisputeStatus(status: string | undefined): boolean {
  return status === undefined || !closingStatuses.has(status.toLowerCase());
}

/**
 * The resource's disputes after a `transaction_infraction`: a new one opened, or the one with the same
 * infraction id (else the same `openedAt`) updated. A new list; the given one is not changed.
 */
export function applyInfraction(
  disputes: readonly Dispute[],
  event: TransactionEvent | PspTransactionEvent,
  receivedAt: number,
): Dispute[] {
  const infraction = event.transaction.infraction ?? {};
  const stated = validTime(infraction.openedAt);
  const index = disputes.findIndex((known) =>
    infraction.id !== undefined
      ? known.id === infraction.id
      : known.id === undefined && (stated === undefined || known.openedAt === stated),
  );
  const earlier = index === -1 ? undefined : disputes[index];
  const dispute: Dispute = {
    resourceId: event.transaction.id,
    openedAt: earlier?.openedAt ?? stated ?? new Date(receivedAt).toISOString(),
    open: isOpenDisputeStatus(infraction.status ?? earlier?.status),
  };
  const id = infraction.id ?? earlier?.id;
  if (id !== undefined) dispute.id = id;
  const status = infraction.status ?? earlier?.status;
  if (status !== undefined) dispute.status = status;
  const reason = infraction.reason ?? earlier?.reason;
  if (reason !== undefined) dispute.reason = reason;
  const amount = infraction.amountInCents ?? earlier?.amountInCents;
  if (amount !== undefined) dispute.amountInCents = amount;
  const next = disputes.slice();
  if (index === -1) next.push(dispute);
  else next[index] = dispute;
  return next;
}

/** An ISO 8601 form of a stated time, or undefined when it is not a readable time. */
function validTime(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}
