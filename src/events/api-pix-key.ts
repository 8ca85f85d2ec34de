import type { ApiPixEvent } from './event-types.js';
import { escapePart } from './key-part.js';

/**
 * The dedupe key of a standard API Pix event: the fact, however it arrives (alone, in a batch, again
 * inside a refund's notification, from a listing). A Pix is its endToEndId; a refund is the original
 * endToEndId, the refund's id (unique per Pix) and its status; a recurrence its idRec and status; a
 * recurring charge its txid and status.
 */
export function apiPixKey(event: ApiPixEvent): string {
  switch (event.name) {
    case 'pix_received':
      return 'pix_received:' + escapePart(event.pix.endToEndId);
    case 'pix_refund_updated':
      return ['pix_refund_updated', escapePart(event.refund.endToEndId), escapePart(event.refund.id), event.refund.status].join(':');
    case 'recurrence_updated':
      return ['recurrence_updated', escapePart(event.recurrence.id), escapePart(event.recurrence.status)].join(':');
    case 'recurring_charge_updated':
      return ['recurring_charge_updated', escapePart(event.recurringCharge.txid), escapePart(event.recurringCharge.status)].join(':');
  }
}
