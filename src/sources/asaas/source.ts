import { escapePart } from '../../events/key-part.js';
import type { JsonObject, PixEvent } from '../../events/event-types.js';
import { readHeader } from '../../shared/read-header.js';
import type { Fetched, Hint, RequestHead, Source, SourceRead, Verdict } from '../source.js';
import { object } from '../shared/charge-event.js';
import { sameText } from '../shared/constant-time.js';
import { factKey } from '../shared/fact-key.js';
import { baseUrl, fetchRecord } from '../shared/fetch-record.js';
import { prepareHttpGet } from '../shared/http-get.js';
import { configFail, optionalText, requiredText } from '../shared/options.js';
import { confirmedAsaasEvent, isAsaasPaymentEvent, readAsaasBody } from './read.js';
import { isPresent } from '../shared/present.js';

export interface AsaasOptions {
  psp: 'asaas';
  /** The access token chosen when the webhook was registered: Asaas sends it in `asaas-access-token`. */
  token: string;
  /** With it, each payment is confirmed with `GET /v3/payments/{id}` (the key in the `access_token` header) before it counts. */
  apiKey?: string;
  /** Default `https://api.asaas.com` (sandbox: `https://api-sandbox.asaas.com`). */
  apiBaseUrl?: string;
}

const header = 'asaas-access-token';

/**
 * Asaas (docs.asaas.com, "Sobre os webhooks" / "Como implementar a autenticação"): no signature, a static
 * token in `asaas-access-token`, compared in constant time and masked wherever a request is kept. At
 * least once: the dedupe key is the event's own `id` (`evt_…`); with `apiKey`, the confirmed fact (`asaasKey`).
 */
export function asaasSource(options: AsaasOptions): Source {
  const token = requiredText('token', options.token);
  const apiKey = optionalText('apiKey', options.apiKey);
  // Without apiKey nothing is fetched: an apiBaseUrl alone (the sandbox's, apiKey forgotten) would be ignored, and
  // every body trusted unconfirmed.
  if (apiKey === undefined && options.apiBaseUrl !== undefined)
    configFail('apiBaseUrl', 'needs `apiKey`: without it no payment is confirmed with the API, so the URL would be ignored.');
  const api = baseUrl('apiBaseUrl', options.apiBaseUrl, 'https://api.asaas.com', configFail);
  if (apiKey !== undefined) prepareHttpGet();

  function authenticate(head: RequestHead): Verdict {
    const given = readHeader(head.headers, header);
    if (!isPresent(given))
      return { ok: false, reason: 'signature_missing', hint: `no ${header} header`, message: 'The asaas-access-token header is missing.' };
    return sameText(given, token) ? { ok: true } : { ok: false, reason: 'signature_mismatch', hint: `${header} does not match` };
  }

  function read(json: unknown): SourceRead {
    const body = object(json);
    const name = body === undefined ? undefined : body['event'];
    if (body === undefined || !isAsaasPaymentEvent(name)) {
      if (typeof name === 'string') return { events: [], hints: [], failures: [] };
      return { events: [], hints: [], failures: [{ path: 'event', message: 'event: expected the Asaas event name' }] };
    }
    const event = readAsaasBody(body);
    if (event === undefined)
      return { events: [], hints: [], failures: [{ path: 'payment', message: 'payment: expected its id and a decimal value' }] };
    if (apiKey === undefined) return { events: [event], hints: [], failures: [] };
    return { events: [], hints: [{ id: event.transaction.id, resource: 'payment', deliveryId: event.deliveryId, body }], failures: [] };
  }

  async function fetchPayment(hint: Hint, signal: AbortSignal): Promise<Fetched> {
    const got = await fetchRecord(`${api}/v3/payments/${encodeURIComponent(hint.id)}`, { access_token: apiKey! }, signal);
    if (got.status !== 'found') return got;
    // A partial refund leaves the payment's status paid: the refund it lists confirms the webhook's.
    const event = confirmedAsaasEvent(got.record, hint.body, hint.deliveryId);
    return event === undefined
      ? { status: 'unavailable', hint: 'the fetched payment misses its id, status or value' }
      : { status: 'events', events: [event] };
  }

  return {
    provider: 'asaas',
    needs: { url: false },
    secrets: { headers: [header], params: [] },
    authenticate,
    read,
    ...(apiKey !== undefined && { fetch: fetchPayment }),
    key: asaasKey,
  };
}

/**
 * An event read from the webhook's own body: `asaas:evt:<event id>` (at least once: a resent event keeps its
 * id). An event confirmed with `GET /v3/payments/{id}` (its payload the fetched payment, not the webhook's
 * `{ event, payment }`), or one without an id: the confirmed fact's key (`factKey`), so every event Asaas sends
 * of one payment — `PAYMENT_RECEIVED`, a late `PAYMENT_CREATED` fetched as `RECEIVED` — names one fact, and the
 * handlers run once. Pure: intake, replay and the durable worker key an event alike.
 */
export function asaasKey(event: PixEvent): string {
  return event.deliveryId === undefined || !isWebhookBody(event.payload) ? factKey(event) : 'asaas:evt:' + escapePart(event.deliveryId);
}

/** The webhook's envelope (`{ id, event, payment }`) rather than a payment fetched from the API. */
function isWebhookBody(payload: JsonObject): boolean {
  return typeof payload['event'] === 'string' && object(payload['payment']) !== undefined;
}
