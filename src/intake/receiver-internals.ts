import { PixhookConfigError } from '../shared/pixhook-error.js';
import type { InternalReceiver, Receiver, ReceiverInternals } from './receiver-types.js';

/**
 * The receiver with its adapters' part as a declared member. Not enumerable, so logging or spreading a
 * receiver shows what a merchant calls only.
 */
export function withInternals(receiver: Receiver, internals: ReceiverInternals): InternalReceiver {
  return Object.defineProperty(receiver, 'internals', { value: internals, enumerable: false }) as InternalReceiver;
}

/** The internals of a receiver `createReceiver` made; anything else is refused (an adapter reads them once, when created). */
export function internalsOf(receiver: Receiver): ReceiverInternals {
  const found = typeof receiver === 'object' && receiver !== null ? (receiver as Partial<InternalReceiver>).internals : undefined;
  if (found === undefined) throw new PixhookConfigError('pixhook: `receiver` must be a receiver made by createReceiver().');
  return found;
}
