import type { Fetched, Hint, RequestHead, Source, SourceRead, Verdict } from '../source.js';
import { object } from '../shared/charge-event.js';
import { factKey } from '../shared/fact-key.js';
import { baseUrl, fetchRecord } from '../shared/fetch-record.js';
import { prepareHttpGet } from '../shared/http-get.js';
import { configFail, requiredText } from '../shared/options.js';
import { queryParam, urlSecretMatches } from '../shared/url-secret.js';
import { pagarmeChargeEvent, pagarmeHints } from './read.js';
import { isPresent } from '../shared/present.js';
import { refuseUnknownOptions } from '../../shared/known-options.js';

export interface PagarmeOptions {
  psp: 'pagarme';
  /** The account's secret key (`sk_…`): charges are fetched with it (HTTP Basic, the key as user, no password). */
  secretKey: string;
  /** Pagar.me v5 documents no signature: the registered URL carries this secret in its query (`?<param>=<secret>`). */
  urlSecret: { secret: string; param?: string };
  /** Default `https://api.pagar.me`. */
  apiBaseUrl?: string;
}

/**
 * Pagar.me v5 (docs.pagar.me/docs/webhooks): no documented signature (v1–v4's `X-Hub-Signature` is gone),
 * so the URL secret is required and masked everywhere, and every charge a hook names is fetched with the
 * secret key before it counts; one that cannot be fetched is answered 503 and fetched again on the retry.
 */
export function pagarmeSource(options: PagarmeOptions): Source {
  const secretKey = requiredText('secretKey', options.secretKey);
  const urlSecret = object(options.urlSecret as unknown);
  if (urlSecret === undefined) configFail('urlSecret', 'is required: { secret, param? } (Pagar.me v5 documents no signature).');
  refuseUnknownOptions(urlSecret, ['secret', 'param'], 'urlSecret { secret, param? }', 'urlSecret.');
  const secret = requiredText('urlSecret.secret', urlSecret['secret']);
  const param = urlSecret['param'] === undefined ? 'secret' : requiredText('urlSecret.param', urlSecret['param']);
  const api = baseUrl('apiBaseUrl', options.apiBaseUrl, 'https://api.pagar.me', configFail);
  const auth = { authorization: `Basic ${btoa(`${secretKey}:`)}` };
  prepareHttpGet();

  function authenticate(head: RequestHead): Verdict {
    // An empty secret (`?secret=`) is no secret given: missing, as an empty header is on every other source.
    if (!isPresent(queryParam(head.url, param)))
      return { ok: false, reason: 'signature_missing', hint: `no ${param} in the URL`, message: 'The URL secret is missing.' };
    return urlSecretMatches(head.url, param, secret)
      ? { ok: true }
      : { ok: false, reason: 'signature_mismatch', hint: 'the URL secret does not match' };
  }

  function read(json: unknown): SourceRead {
    const body = object(json);
    if (body === undefined) return { events: [], hints: [], failures: [{ path: '', message: 'expected a JSON object' }] };
    const { hints, failures } = pagarmeHints(body);
    return { events: [], hints, failures };
  }

  async function fetchCharge(hint: Hint, signal: AbortSignal): Promise<Fetched> {
    const got = await fetchRecord(`${api}/core/v5/charges/${encodeURIComponent(hint.id)}`, auth, signal);
    if (got.status !== 'found') return got;
    const event = pagarmeChargeEvent(got.record, hint.deliveryId);
    return event === undefined
      ? { status: 'unavailable', hint: 'the fetched charge misses its id, status or amount' }
      : { status: 'events', events: [event] };
  }

  return {
    provider: 'pagarme',
    needs: { url: true },
    secrets: { headers: [], params: [param] },
    authenticate,
    read,
    fetch: fetchCharge,
    key: factKey,
  };
}
