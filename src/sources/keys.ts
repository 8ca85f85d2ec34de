import { eventKey } from '../events/event-key.js';
import type { PixEvent } from '../events/event-types.js';
import { asaasKey } from './asaas/source.js';
import { factKey } from './shared/fact-key.js';

/**
 * The default dedupe key of any event, whoever sent it: the gateway's and API Pix's keys unchanged
 * (`eventKey`), a PSP's starting with its provider. Pure: no source is constructed to key an event.
 */
export function sourceKey(event: PixEvent): string {
  switch (event.provider) {
    case 'gateway':
    case 'api-pix':
      return eventKey(event);
    case 'asaas':
      return asaasKey(event);
    default:
      return factKey(event);
  }
}
