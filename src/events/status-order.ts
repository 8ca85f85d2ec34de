import type { TransactionStatus, TransferStatus } from './event-names.js';

// Events arrive out of order (a retried `transaction_created` after `transaction_paid`); a stored
// status must only ever move forward. Terminal states share the highest rank of their branch.
const transactionRank: Record<string, number> = { pending: 0, paid: 1, canceled: 1, expired: 1, refunded: 2 };
const transferRank: Record<string, number> = { created: 0, queued: 0, processing: 1, completed: 2, canceled: 2, refused: 2 };

/**
 * True when moving from `from` to `to` is progress (pending → paid → refunded; queued → processing →
 * completed / canceled / refused), false when it would go backwards or sideways, and undefined when
 * either status is one this version does not know — decide those yourself.
 */
export function isForwardTransition(
  input:
    | { kind: 'transaction'; from: TransactionStatus; to: TransactionStatus }
    | { kind: 'transfer'; from: TransferStatus; to: TransferStatus },
): boolean | undefined {
  const rank = input.kind === 'transaction' ? transactionRank : transferRank;
  const from = Object.hasOwn(rank, input.from) ? rank[input.from] : undefined;
  const to = Object.hasOwn(rank, input.to) ? rank[input.to] : undefined;
  if (from === undefined || to === undefined) return undefined;
  return to > from;
}
