import { describeGiven } from '../../shared/option-checks.js';
import { PixhookConfigError } from '../../shared/pixhook-error.js';
import { readHeader } from '../../shared/read-header.js';
import { addressList } from './address-list.js';
import { fingerprintSet, normalizeFingerprint, refuseUnknown, secretComparer, secretOption, type ResolvedAuth } from './auth-checks.js';

const known = ['from', 'secret', 'secretHeader', 'verifyHeader', 'fingerprintHeader', 'fingerprints'];

/**
 * `proxy`: nginx (or a load balancer) terminated TLS and checked the PSP's certificate. Its verdict is believed
 * only from its addresses (`from`) and only with the secret its mTLS server block adds (`secret`): an ordinary
 * site block on the same proxy forwards whatever headers a caller sends, a fingerprint is public, but the
 * secret is written by the mTLS block alone.
 */
export function proxyAuth(options: Record<string, unknown>): ResolvedAuth {
  refuseUnknown('proxy', options, known);
  const from = addressList('auth.proxy.from', options['from']);
  const fromText = (options['from'] as string[]).join(', ');
  if (options['secret'] === undefined)
    throw new PixhookConfigError(
      'pixhook: `auth.proxy.secret` is required: a random string of at least 16 characters that only the mTLS server block of the proxy sends ' +
        '(nginx: proxy_set_header X-Pixhook-Proxy-Secret "…"), so a request through any other block, or around the proxy, is refused.',
    );
  const sameSecret = secretComparer(secretOption('auth.proxy.secret', options['secret'], 'a random secret the proxy sends'));
  const header = (name: string, fallback: string): string => {
    const value = options[name];
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || !/^[A-Za-z0-9-]+$/.test(value))
      throw new PixhookConfigError(`pixhook: \`auth.proxy.${name}\` must be a header name, got ${describeGiven(value)}.`);
    return value.toLowerCase();
  };
  const secretHeader = header('secretHeader', 'x-pixhook-proxy-secret');
  const verifyHeader = header('verifyHeader', 'x-ssl-client-verify');
  const fingerprintHeader = header('fingerprintHeader', 'x-ssl-client-fingerprint');
  if (new Set([secretHeader, verifyHeader, fingerprintHeader]).size !== 3)
    throw new PixhookConfigError(
      'pixhook: `auth.proxy.secretHeader`, `auth.proxy.verifyHeader` and `auth.proxy.fingerprintHeader` must be three different headers.',
    );
  const pinned = fingerprintSet('auth.proxy.fingerprints', options['fingerprints'], false);
  return {
    mode: 'proxy',
    needsTls: false,
    needsAddress: true,
    check({ headers, peer }) {
      // Only the proxy may speak for the certificate: anyone else sending its headers is refused.
      if (!from.has(peer?.address))
        return {
          reason: 'address_not_allowed',
          hint: `the address seen, ${peer?.address ?? '(none)'}, is not one of auth.proxy.from (${fromText}); set from to the address the proxy connects from`,
        };
      const secret = readHeader(headers, secretHeader);
      if (!sameSecret(secret))
        return {
          reason: 'proxy_secret_mismatch',
          hint:
            secret === undefined
              ? `no ${secretHeader} header: the request did not come through the proxy's mTLS server block (or it does not set the header)`
              : `${secretHeader} does not match auth.proxy.secret`,
        };
      const verdict = readHeader(headers, verifyHeader);
      if (verdict === undefined || verdict === '' || verdict === 'NONE')
        return { reason: 'client_certificate_required', hint: `the proxy reports no client certificate (${verifyHeader})` };
      if (verdict !== 'SUCCESS')
        return { reason: 'client_certificate_rejected', hint: `the proxy reports the certificate failed (${verifyHeader}): check the CA` };
      if (pinned !== undefined) {
        const print = normalizeFingerprint(readHeader(headers, fingerprintHeader) ?? '');
        if (print === undefined || !pinned.has(print))
          return {
            reason: 'client_certificate_rejected',
            hint: `the fingerprint pin refused it (the proxy verified the CA): ${print ?? '(none)'} is not one of auth.proxy.fingerprints`,
          };
      }
      return undefined;
    },
  };
}
