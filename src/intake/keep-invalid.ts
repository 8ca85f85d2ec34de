import type { InvalidDelivery, QuarantineStore } from '../dedupe/quarantine-store.js';
import type { Logger } from '../shared/logger.js';
import { plainHeaders, type HeaderSource } from '../shared/read-header.js';
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
