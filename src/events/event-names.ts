// The documented events, plus the two the field notes saw in the wild (MED disputes, cancellations).
export const transactionEventNames = [
  'transaction_created',
  'transaction_paid',
  'transaction_refunded',
  'transaction_updated',
  'transaction_canceled',
  'transaction_infraction',
] as const;

export const transferEventNames = ['transfer_created', 'transfer_completed', 'transfer_canceled', 'transfer_updated'] as const;

export const pixEventNames = [...transactionEventNames, ...transferEventNames] as const;

/** The eight events the interface documents (registering others may be refused by a real gateway). */
export const documentedEventNames = pixEventNames.filter((name) => name !== 'transaction_canceled' && name !== 'transaction_infraction');

export type TransactionEventName = (typeof transactionEventNames)[number];
export type TransferEventName = (typeof transferEventNames)[number];
export type PixEventName = TransactionEventName | TransferEventName;
/** Every event name a handler can be registered for: the gateway family's and the standard API Pix's. */
export type EventName = PixEventName | ApiPixEventName;

export const transactionStatuses = ['pending', 'paid', 'canceled', 'refunded', 'expired'] as const;
export const transferStatuses = ['queued', 'created', 'processing', 'completed', 'canceled', 'refused'] as const;

// Unknown statuses arrive in the wild; `string & {}` keeps editor completion for the known ones.
export type TransactionStatus = (typeof transactionStatuses)[number] | (string & {});
export type TransferStatus = (typeof transferStatuses)[number] | (string & {});

const nameSet: ReadonlySet<string> = new Set(pixEventNames);

export function isPixEventName(name: string): name is PixEventName {
  return nameSet.has(name);
}

export function isTransferEventName(name: PixEventName): name is TransferEventName {
  return name.startsWith('transfer_');
}

/** The standard API Pix's events (pixhook/api-pix), beside the gateway family's. */
export const apiPixEventNames = ['pix_received', 'pix_refund_updated', 'recurrence_updated', 'recurring_charge_updated'] as const;
export type ApiPixEventName = (typeof apiPixEventNames)[number];

const apiPixNameSet: ReadonlySet<string> = new Set(apiPixEventNames);

/** The standard API Pix's events (`pixhook/api-pix`), which the gateway family never sends. */
export function isApiPixEventName(name: string): name is ApiPixEventName {
  return apiPixNameSet.has(name);
}
