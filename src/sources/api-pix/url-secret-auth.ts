import { describeGiven } from '../../shared/option-checks.js';
import { PixhookConfigError } from '../../shared/pixhook-error.js';
import { addressList } from './address-list.js';
import { refuseUnknown, secretComparer, secretOption, type ResolvedAuth } from './auth-checks.js';

/** What a PSP appends to the registered URL's string: `/pix`, `/rec` or `/cobr`, maybe with a slash. */
const appendedSuffix = /\/(?:pix|rec|cobr)\/?$/i;
/** Path segments looked at; a URL with more is not a PSP's call. */
const maxSegments = 32;

/**
 * `urlSecret`: no mTLS (Efí allows it). The secret is read from the registered URL, in either form a PSP keeps:
 * a path segment (`…/webhooks/bank/<secret>` called as `…/<secret>/pix`), or the query (`?secret=<secret>`),
 * which a PSP appending `/pix` to the string turns into `?secret=<secret>/pix`: the suffix is split off.
 */
export function urlSecretAuth(options: Record<string, unknown>): ResolvedAuth {
  refuseUnknown('urlSecret', options, ['secret', 'param', 'allowFrom']);
  const matches = secretComparer(secretOption('auth.urlSecret.secret', options['secret'], 'a random secret placed in the registered URL'));
  const param = options['param'] ?? 'secret';
  if (typeof param !== 'string' || param === '')
    throw new PixhookConfigError(`pixhook: \`auth.urlSecret.param\` must be a query parameter name, got ${describeGiven(param)}.`);
  const allowFrom = options['allowFrom'] === undefined ? undefined : addressList('auth.urlSecret.allowFrom', options['allowFrom']);
  const allowText = allowFrom === undefined ? '' : (options['allowFrom'] as string[]).join(', ');
  return {
    mode: 'urlSecret',
    needsTls: false,
    needsAddress: allowFrom !== undefined,
    check({ url, peer }) {
      if (allowFrom !== undefined && !allowFrom.has(peer?.address))
        return {
          reason: 'address_not_allowed',
          hint: `the address seen, ${peer?.address ?? '(none)'}, is not one of auth.urlSecret.allowFrom (${allowText})`,
        };
      const { query, segments } = secretPlaces(url, param);
      // Every candidate is compared, whatever matched first: the time does not say which place held it.
      let found = false;
      for (const candidate of query === undefined ? segments : [query, ...segments]) found = matches(candidate) || found;
      if (found) return undefined;
      return {
        reason: 'url_secret_mismatch',
        hint:
          query === undefined
            ? `no ${param} in the query and no path segment matches auth.urlSecret.secret`
            : `the query's ${param} does not match auth.urlSecret.secret (after splitting off a /pix, /rec or /cobr a PSP appended)`,
      };
    },
  };
}

/** The query parameter's value with an appended callback suffix split off, and the path's segments. */
function secretPlaces(url: string | undefined, param: string): { query: string | undefined; segments: string[] } {
  if (url === undefined) return { query: undefined, segments: [] };
  const hash = url.indexOf('#');
  const plain = hash === -1 ? url : url.slice(0, hash);
  const at = plain.indexOf('?');
  const path = at === -1 ? plain : plain.slice(0, at);
  const segments = path
    .split('/')
    .filter((segment) => segment !== '')
    .slice(-maxSegments)
    .map(decoded);
  if (at === -1) return { query: undefined, segments };
  let query: string | undefined;
  try {
    query = new URLSearchParams(plain.slice(at + 1)).get(param) ?? undefined;
  } catch {
    query = undefined;
  }
  return { query: query?.replace(appendedSuffix, ''), segments };
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
