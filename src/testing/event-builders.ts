import type { PixEventName } from '../index.js';
import { buildPayload, type PayloadOptions, type PixPayload } from './build-payload.js';

export type PayloadBuilder = (options?: PayloadOptions) => PixPayload;

const builderFor =
  (name: PixEventName): PayloadBuilder =>
  (options) =>
    buildPayload(name, options);

/** One builder per event name, e.g. `transactionPaid({ variant: 'b', amountInCents: 1990 })`. */
export const transactionCreated = builderFor('transaction_created');
export const transactionPaid = builderFor('transaction_paid');
export const transactionRefunded = builderFor('transaction_refunded');
export const transactionUpdated = builderFor('transaction_updated');
export const transactionCanceled = builderFor('transaction_canceled');
export const transactionInfraction = builderFor('transaction_infraction');
export const transferCreated = builderFor('transfer_created');
export const transferCompleted = builderFor('transfer_completed');
export const transferCanceled = builderFor('transfer_canceled');
export const transferUpdated = builderFor('transfer_updated');
