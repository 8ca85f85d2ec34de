import { normalizeEvent, type HandlerContext, type PixEvent, type QueuedEvent } from '../../src/index.js';

/** What `listen` and `worker` print per handled event (one JSON line: every string is escaped), never the secret. */
export function eventLine(event: PixEvent, context: Pick<HandlerContext, 'key' | 'attempt'>): Record<string, unknown> {
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

/**
 * What `listen --mode durable` prints per event it queued (one JSON line): the event read again from the
 * verified bytes the job carries, with `queued: true`; a body this version cannot read prints its name and key.
 */
export function queuedLine(job: QueuedEvent): Record<string, unknown> {
  let event: PixEvent | undefined;
  try {
    const read = normalizeEvent(JSON.parse(job.body), { source: job.source });
    if (read.ok && read.event.kind !== 'unknown') event = read.event;
  } catch {
    event = undefined;
  }
  const line =
    event === undefined
      ? { event: job.name, key: job.key, source: job.source, receivedAt: job.receivedAt }
      : { ...eventLine(event, { key: job.key, attempt: 0 }), receivedAt: job.receivedAt };
  const { attempt: _attempt, ...rest } = line as Record<string, unknown>;
  return { ...rest, queued: true };
}
