import type { HeldEvent } from '../../src/book/payment-book.js';
import type { PixEvent, Transaction, TransactionEventName, Transfer, TransferEventName } from '../../src/index.js';
import { defaultStatusOf } from '../../src/testing/index.js';
import { bodyOf } from '../../src/events/event-body.js';

export interface Delivery {
  source?: PixEvent['source'];
  scope?: string;
  timestamp?: string;
  deliveryId?: string;
}

/** A charge event as normalizeEvent would give it: status from the name unless given, 1000 cents by default. */
export function chargeEvent(name: TransactionEventName, fields: Partial<Transaction> & { id: string }, delivery: Delivery = {}): PixEvent {
  const transaction: Transaction = { status: defaultStatusOf[name], amountInCents: 1000, ...fields };
  return {
    kind: 'transaction',
    name,
    variant: 'b',
    source: 'webhook',
    provider: 'gateway',
    warnings: [],
    ...bodyOf({}),
    ...delivery,
    transaction,
  } as PixEvent;
}

export function transferEvent(name: TransferEventName, fields: Partial<Transfer> & { id: string }, delivery: Delivery = {}): PixEvent {
  const transfer: Transfer = { status: defaultStatusOf[name], amountInCents: 5000, ...fields };
  return {
    kind: 'transfer',
    name,
    variant: 'b',
    source: 'webhook',
    provider: 'gateway',
    warnings: [],
    ...bodyOf({}),
    ...delivery,
    transfer,
  } as PixEvent;
}

/** `event` held on charge `c` (a held event as a book keeps it), for the pure release checks. */
export function heldOn(event: PixEvent, heldId = 'h'): HeldEvent {
  return {
    heldId,
    resourceId: 'c',
    kind: 'transaction',
    dedupeKey: 'k',
    event,
    violations: [],
    channel: 'postback',
    heldAt: '2026-05-01T12:00:00.000Z',
    state: 'held',
  };
}
