import type { QuarantineStore } from '../dedupe/quarantine-store.js';
import { keepInvalid } from '../intake/keep-invalid.js';
import type { InvalidHandler } from '../intake/receiver-options.js';
import type { SourceDelivery } from '../intake/source-delivery.js';
import type { SourceKeeper } from '../intake/source-pipeline.js';
import { describeError } from '../shared/describe-error.js';
import type { Logger } from '../shared/logger.js';
import { plainHeaders } from '../shared/read-header.js';
import { withTimeout } from '../shared/with-timeout.js';
import type { Source } from '../sources/source.js';

const keepTimeoutMs = 2_000;

/**
 * Keeps an authenticated body that cannot be dispatched (unreadable, or a fetched 404) with its bytes:
 * `onInvalid`, then the quarantine, through the intake's own `keepInvalid`. The source's secret headers
 * (Asaas's token, PagBank's hash) are masked first: the quarantine keeps headers.
 */
export function createPspKeeper(parts: {
  source: Source;
  log: Logger;
  handlers: readonly InvalidHandler[];
  quarantine: QuarantineStore | undefined;
  counted: () => void;
}): SourceKeeper {
  const { source, log, handlers, quarantine } = parts;
  const whole = (delivery: SourceDelivery, reason: 'json_invalid' | 'payload_invalid', detail: string): Promise<void> => {
    parts.counted();
    const headers = plainHeaders(delivery.request.headers);
    for (const name of source.secrets.headers) if (headers[name] !== undefined) headers[name] = '***';
    const work = keepInvalid({
      reason,
      detail,
      bytes: delivery.bytes,
      headers,
      json: delivery.json,
      handlers,
      quarantine,
      log,
      report: (error, where) => log.error({ error: describeError(error), where }, `pixhook: keeping a ${source.provider} body failed`),
    });
    return withTimeout(work, keepTimeoutMs, `keeping a ${source.provider} body`).catch(() => undefined);
  };
  return {
    whole,
    // Kept or not, unreadable items beside readable ones never hold a PSP's answer (a failure is logged).
    items: (delivery) =>
      whole(delivery, 'payload_invalid', delivery.failures.map((failure) => failure.message).join('; ')).then(() => true),
  };
}
