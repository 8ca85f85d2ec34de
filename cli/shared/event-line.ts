import type { HandlerContext, PixEvent } from '../../src/index.js';

/** What `listen` and `worker` print per handled event (one JSON line: every string is escaped), never the secret. */
export function eventLine(event: PixEvent, context: HandlerContext): Record<string, unknown> {
  const resource = event.kind === 'transaction' ? event.transaction : event.transfer;
  return {
    event: event.name,
    kind: event.kind,
    id: resource.id,
    status: resource.status,
    amountInCents: resource.amountInCents,
    variant: event.variant,
    source: event.source,
    ...(event.deliveryId !== undefined && { deliveryId: event.deliveryId }),
    ...(event.scope !== undefined && { scope: event.scope }),
    ...(resource.endToEndId !== undefined && { endToEndId: resource.endToEndId }),
    key: context.key,
    attempt: context.attempt,
    receivedAt: new Date().toISOString(),
  };
}
