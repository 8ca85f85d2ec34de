import { andThen, type MaybePromise } from '../../shared/maybe-promise.js';
import { readHeader } from '../../shared/read-header.js';
import type { Fetched, Hint, RequestHead, Source, SourceRead, Verdict } from '../source.js';
import { object, text } from '../shared/charge-event.js';
import { sameText } from '../shared/constant-time.js';
import { factKey } from '../shared/fact-key.js';
import { baseUrl, fetchRecord } from '../shared/fetch-record.js';
import { prepareHttpGet } from '../shared/http-get.js';
import { configFail, requiredText } from '../shared/options.js';
import { queryParam } from '../shared/url-secret.js';
import { paymentEvent } from './read.js';
import { mercadoPagoManifest, mercadoPagoV1 } from './sign.js';
import { isPresent } from '../shared/present.js';

export interface MercadoPagoOptions {
  psp: 'mercado-pago';
  /** The webhook's secret signature (Your integrations → Webhooks). */
  secret: string;
  /** The access token `GET /v1/payments/{id}` is read with. */
  accessToken: string;
  /** Default `https://api.mercadopago.com`. */
  apiBaseUrl?: string;
  /**
   * How old a `ts` may be, in seconds. Default 86 400 (24 h). Mercado Pago retries an unanswered
   * notification every 15 minutes, then at longer intervals, and documents neither whether a retry is
   * signed anew nor for how long it retries: a bound of a day keeps every documented retry, and a replay
   * inside it can only make pixhook fetch the same payment again (the fetched state decides and the key
   * dedupes it). A `ts` more than 300 s in the future is refused too.
   */
  toleranceSeconds?: number;
}

const futureSkewSeconds = 300;

const matched: Verdict = { ok: true };
const mismatch: Verdict = { ok: false, reason: 'signature_mismatch', hint: 'v1 does not match the manifest' };

function judge(expected: string, given: string): Verdict {
  return sameText(given, expected) ? matched : mismatch;
}

/** `ts` in seconds: the docs call it milliseconds but their example is seconds; above 10¹¹ it is read as milliseconds. */
function tsSeconds(ts: string): number | undefined {
  if (!/^\d{1,16}$/.test(ts)) return undefined;
  const n = Number(ts);
  return n > 1e11 ? n / 1000 : n;
}

/** `ts=…,v1=…` (parts in any order, spaces tolerated), or undefined when malformed. */
function parseSignature(header: string): { ts: string; v1: string } | undefined {
  let ts: string | undefined;
  let v1: string | undefined;
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at === -1) continue;
    const name = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (name === 'ts') ts = value;
    else if (name === 'v1') v1 = value.toLowerCase();
  }
  return ts !== undefined && v1 !== undefined && /^[0-9a-f]{64}$/.test(v1) ? { ts, v1 } : undefined;
}

/** The payment id a notification names: `data.id` of the query (Webhooks), else `id` with `topic=payment` (IPN). */
function queryPaymentId(url: string | undefined): string | undefined {
  const dataId = queryParam(url, 'data.id');
  if (dataId !== undefined) return dataId;
  const topic = queryParam(url, 'topic') ?? queryParam(url, 'type');
  return topic === 'payment' ? queryParam(url, 'id') : undefined;
}

/**
 * Mercado Pago (mercadopago/devsite-docs `guides/additional-content/your-integrations/webhooks.en.md`): the
 * notification is only a hint; `x-signature` is checked over the manifest, then the payment is fetched
 * with the access token and its fetched state decides.
 */
export function mercadoPagoSource(options: MercadoPagoOptions, now: () => number = Date.now): Source {
  const secret = requiredText('secret', options.secret);
  const accessToken = requiredText('accessToken', options.accessToken);
  const api = baseUrl('apiBaseUrl', options.apiBaseUrl, 'https://api.mercadopago.com', configFail);
  const tolerance = options.toleranceSeconds ?? 86_400;
  if (typeof tolerance !== 'number' || !Number.isFinite(tolerance) || tolerance < 1 || tolerance > 30 * 86_400)
    configFail('toleranceSeconds', 'must be a number of seconds from 1 to 2 592 000 (30 days).');
  const auth = { authorization: `Bearer ${accessToken}` };
  prepareHttpGet();

  function authenticate(head: RequestHead): MaybePromise<Verdict> {
    const header = readHeader(head.headers, 'x-signature');
    if (!isPresent(header))
      return { ok: false, reason: 'signature_missing', hint: 'no x-signature header', message: 'The x-signature header is missing.' };
    const parsed = parseSignature(header);
    if (parsed === undefined) return { ok: false, reason: 'signature_mismatch', hint: 'x-signature is not ts=…,v1=<64 hex>' };
    const seconds = tsSeconds(parsed.ts);
    const age = seconds === undefined ? Number.NaN : now() / 1000 - seconds;
    if (!(age <= tolerance && age >= -futureSkewSeconds))
      return { ok: false, reason: 'signature_expired', hint: `ts ${parsed.ts} is outside ${String(tolerance)} s` };
    const manifest = mercadoPagoManifest(queryParam(head.url, 'data.id'), readHeader(head.headers, 'x-request-id'), parsed.ts);
    // Synchronous with node:crypto: no promise, no microtask before the body is read.
    return andThen(mercadoPagoV1(secret, manifest), judge, undefined, parsed.v1);
  }

  function read(json: unknown, head: RequestHead): SourceRead {
    const body = object(json) ?? {};
    const fromQuery = queryPaymentId(head.url);
    const fromBody = text(object(body['data'])?.['id']) ?? (body['topic'] === 'payment' ? text(body['resource']) : undefined);
    const type = text(body['type']) ?? text(body['topic']) ?? queryParam(head.url, 'type') ?? queryParam(head.url, 'topic');
    // The query's id is the one signed: a body naming another is refused (a replay with another id).
    if (fromQuery !== undefined && fromBody !== undefined && fromQuery !== fromBody)
      return {
        events: [],
        hints: [],
        failures: [{ path: 'data.id', message: 'data.id: the body names another payment than the signed query' }],
      };
    const id = fromQuery ?? fromBody;
    if (type !== undefined && type !== 'payment') return { events: [], hints: [], failures: [] };
    if (id === undefined)
      return { events: [], hints: [], failures: [{ path: 'data.id', message: 'data.id: no payment id in the query or the body' }] };
    return { events: [], hints: [{ id, resource: 'payment', body }], failures: [] };
  }

  async function fetchPayment(hint: Hint, signal: AbortSignal): Promise<Fetched> {
    const got = await fetchRecord(`${api}/v1/payments/${encodeURIComponent(hint.id)}`, auth, signal);
    if (got.status !== 'found') return got;
    const event = paymentEvent(got.record);
    return event === undefined
      ? { status: 'unavailable', hint: 'the fetched payment misses its id, status or transaction_amount' }
      : { status: 'events', events: [event] };
  }

  return {
    provider: 'mercado-pago',
    needs: { url: true },
    secrets: { headers: ['x-signature'], params: [] },
    authenticate,
    read,
    fetch: fetchPayment,
    key: factKey,
  };
}
