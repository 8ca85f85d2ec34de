import { apiPixKey } from './api-pix-key.js';
import type { PixEvent } from './event-types.js';
import { escapePart } from './key-part.js';

/**
 * The default dedupe key: the fact an event states, never how it travelled.
 *
 * `<name>:<resource id>:<status>:<amount in cents>`, then tagged parts for facts that repeat name, id and
 * status: a payment (a charge event stating `paid`, other than a dispute) adds `e2e=<endToEndId>` when it has one, so a
 * second payment of the same amount is a new key for the payment book to judge; a refund adds `ra=<refund cents>` and its identity — `ri=<refund id>`, else `rt=<refundedAt>`, else
 * `rr=<reason>` (the first the refund states) —, a MED dispute adds `mi=<infraction id>`
 * (or `mo=<openedAt>` without an id) and `ms=<dispute status>`. Every part is percent-escaped (`%` → `%25`,
 * `:` → `%3A`), so no two different facts build one key. The delivery id, scope and timestamp stay out:
 * the same event through `postbackUrl` and through a registered webhook, or retried, is one key.
 *
 * Example: `transaction_refunded:txn_1:refunded:1990:ra=500:rt=2026-11-22T13%3A00%3A00Z`. The standard API Pix's
 * events have keys of their own (`apiPixKey`): `pix_received:<endToEndId>`.
 */
export function eventKey(event: PixEvent): string {
  // join() builds one flat string; a template literal leaves a rope of its parts, which a dedupe store
  // then keeps for the key's whole TTL (~100 bytes more per key, measured in bench/memory.js).
  if (event.variant === 'api-pix') return apiPixKey(event);
  const resource = event.kind === 'transaction' ? event.transaction : event.transfer;
  const parts = [event.name, escapePart(resource.id), escapePart(resource.status), String(resource.amountInCents)];
  if (event.kind === 'transaction') {
    const { refund, infraction, endToEndId } = event.transaction;
    if (endToEndId !== undefined && resource.status === 'paid' && event.name !== 'transaction_infraction') {
      parts.push('e2e=' + escapePart(endToEndId));
    }
    if (refund) {
      if (refund.amountInCents !== undefined) parts.push('ra=' + String(refund.amountInCents));
      // The refund's own id is its identity; without one, when it happened; without that, why.
      if (refund.id !== undefined) parts.push('ri=' + escapePart(refund.id));
      else if (refund.refundedAt !== undefined) parts.push('rt=' + escapePart(refund.refundedAt));
      else if (refund.reason !== undefined) parts.push('rr=' + escapePart(refund.reason));
    }
    if (infraction) {
      if (infraction.id !== undefined) parts.push('mi=' + escapePart(infraction.id));
      else if (infraction.openedAt !== undefined) parts.push('mo=' + escapePart(infraction.openedAt));
      if (infraction.status !== undefined) parts.push('ms=' + escapePart(infraction.status));
    }
  }
  return parts.join(':');
}
