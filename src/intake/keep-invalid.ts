import type { InvalidDelivery, QuarantineStore } from '../dedupe/quarantine-store.js';
import type { Logger } from '../shared/logger.js';
import type { HeaderSource } from '../shared/read-header.js';
import type { InvalidHandler } from './receiver-options.js';

/**
 * A verified body that cannot be read as an event is never only logged: it goes to `onInvalid` and
 * the quarantine, so a merchant who fixes the cause can replay it after the sender gives up.
 */
export async function keepInvalid(input: {
  reason: InvalidDelivery['reason'];
  detail: string;
  bytes: Uint8Array;
  headers: HeaderSource;
  json: unknown;
  handlers: readonly InvalidHandler[];
  quarantine: QuarantineStore | undefined;
  log: Logger;
  report: (error: unknown, where: string) => void;
}): Promise<void> {
  const delivery: InvalidDelivery = {
    reason: input.reason,
    message: input.detail,
    bytes: input.bytes,
    headers: plainHeaders(input.headers),
    ...(input.json !== undefined && { json: input.json }),
    receivedAt: new Date().toISOString(),
  };
  input.log.warn(
    { reason: input.reason, detail: input.detail, bytes: input.bytes.byteLength },
    'pixhook: verified delivery could not be read as an event',
  );
  for (const handler of input.handlers) {
    try {
      await handler(delivery);
    } catch (error) {
      input.report(error, 'onInvalid');
    }
  }
  if (input.quarantine) {
    try {
      const id = await input.quarantine.put(delivery);
      input.log.warn({ quarantineId: id }, 'pixhook: invalid delivery quarantined');
    } catch (error) {
      input.report(error, 'the quarantine');
    }
  }
}

function plainHeaders(headers: HeaderSource): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof (headers as { forEach?: unknown }).forEach === 'function' && typeof headers.get === 'function') {
    (headers as unknown as { forEach(cb: (value: string, name: string) => void): void }).forEach((value, name) => {
      out[name.toLowerCase()] = value;
    });
    return out;
  }
  for (const [name, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (value !== undefined) out[name.toLowerCase()] = typeof value === 'string' ? value : value.join(', ');
  }
  return out;
}
