import type { InvalidDelivery, QuarantineStore } from '../../dedupe/quarantine-store.js';
import type { InvalidHandler } from '../../intake/receiver-options.js';
import { describeError } from '../../shared/describe-error.js';
import type { Logger } from '../../shared/logger.js';
import { plainHeaders } from '../../shared/read-header.js';
import { withTimeout } from '../../shared/with-timeout.js';
import type { SourceDelivery } from '../../intake/source-delivery.js';
import type { SourceKeeper } from '../../intake/source-pipeline.js';

const keepInvalidTimeoutMs = 2_000;

interface InvalidKeeperParts {
  log: Logger;
  /** Counts each unreadable call. */
  counted: () => void;
  /** Live: `receiver.onInvalid` adds to it. */
  handlers: readonly InvalidHandler[];
  quarantine: QuarantineStore | undefined;
}

/** Where unreadable calls (or items of a call) go, with the call's exact bytes: `onInvalid`, then the quarantine. */
export function createInvalidKeeper({ log, counted, handlers, quarantine }: InvalidKeeperParts): SourceKeeper {
  /** A call we cannot read at all: kept (the pipeline answers 400, like the gateway's). */
  async function whole(call: SourceDelivery, reason: 'json_invalid' | 'payload_invalid', detail: string): Promise<void> {
    const headers = plainHeaders(call.request.headers);
    const json = reason === 'payload_invalid' ? call.json : undefined;
    await keep({
      reason,
      message: detail,
      bytes: call.bytes,
      headers,
      ...(json !== undefined && { json }),
      receivedAt: new Date().toISOString(),
    });
  }

  async function items(call: SourceDelivery): Promise<boolean> {
    const message = call.failures.map((failure) => failure.message).join('; ');
    log.warn({ items: call.failures.length, detail: message }, 'pixhook: items of an API Pix call could not be read; kept with the call');
    const headers = plainHeaders(call.request.headers);
    return keep({ reason: 'payload_invalid', message, bytes: call.bytes, headers, json: call.json, receivedAt: new Date().toISOString() });
  }

  /** onInvalid, then the quarantine. True when the call is kept somewhere (or there is nowhere to keep it). */
  async function keep(delivery: InvalidDelivery): Promise<boolean> {
    counted();
    let handled = false;
    const work = async (): Promise<boolean> => {
      for (const handler of handlers) {
        try {
          await handler(delivery);
          handled = true;
        } catch (error) {
          log.error({ error: describeError(error) }, 'pixhook: onInvalid failed for an API Pix call');
        }
      }
      if (quarantine === undefined) {
        if (handlers.length === 0)
          log.error({ detail: delivery.message }, 'pixhook: an unreadable API Pix call was not kept: no quarantine, no onInvalid');
        return handled || handlers.length === 0;
      }
      try {
        const id = await quarantine.put(delivery);
        log.warn({ quarantineId: id }, 'pixhook: API Pix call quarantined');
        return true;
      } catch (error) {
        log.error({ error: describeError(error) }, 'pixhook: the quarantine failed for an API Pix call');
        return handled;
      }
    };
    return withTimeout(work(), keepInvalidTimeoutMs, 'keeping an unreadable API Pix call').catch(() => handled);
  }

  return { whole, items };
}
