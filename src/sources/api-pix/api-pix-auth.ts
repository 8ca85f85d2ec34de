import { describeGiven } from '../../shared/option-checks.js';
import { PixhookConfigError } from '../../shared/pixhook-error.js';
import type { ResolvedAuth } from './auth-checks.js';
import { mtlsAuth } from './mtls-auth.js';
import { proxyAuth } from './proxy-auth.js';
import { urlSecretAuth } from './url-secret-auth.js';

export type { AuthFailure, AuthRefusal } from './auth-checks.js';

/** PEM text (one or several certificates), or a list of them. Bytes of a PEM file are accepted too. */
export type CertificateSource = string | Uint8Array | readonly (string | Uint8Array)[];

/**
 * How the PSP's calls are authenticated: exactly one of the three. The standard's way is `mtls`.
 * - `mtls`: Node terminates TLS (see `createMtlsServer` in `pixhook/node`); the client certificate must
 *   chain to `ca`, and name a pinned DNS name (its DNS SANs, or its CN when it has none: RFC 6125) or have a
 *   pinned SHA-256 fingerprint when given.
 * - `proxy`: nginx or a load balancer terminated TLS and checked the certificate; it passes its verdict,
 *   the fingerprint and a secret only it knows in headers, trusted only from the `from` addresses.
 * - `urlSecret`: no mTLS (Efí allows it): a secret in the registered URL (a path segment, or the query, where a
 *   `/pix` a PSP appends is split off), with an optional allow-list.
 */
export type ApiPixAuth =
  | {
      mtls: {
        ca: CertificateSource;
        /** DNS names; a certificate's DNS SANs are read when it has any, its subject CN only when it has none. */
        names?: readonly string[];
        fingerprints?: readonly string[];
      };
    }
  | {
      proxy: {
        /** The proxy's addresses or CIDR blocks: the only peers whose headers are believed. */
        from: readonly string[];
        /**
         * A random string (16 characters or more) that only the proxy's mTLS server block sends, in `secretHeader`
         * (nginx: `proxy_set_header X-Pixhook-Proxy-Secret "…";`). Required: without it, any other site block of
         * the same proxy would forward a caller's forged verdict.
         */
        secret: string;
        /** Default `x-pixhook-proxy-secret`. */
        secretHeader?: string;
        /** Default `x-ssl-client-verify` (nginx: `proxy_set_header X-SSL-Client-Verify $ssl_client_verify;`). */
        verifyHeader?: string;
        /** Default `x-ssl-client-fingerprint` (nginx's `$ssl_client_fingerprint`, SHA-1 hex). */
        fingerprintHeader?: string;
        /** Pinned fingerprints (as the proxy writes them; case and `:` separators do not matter). */
        fingerprints?: readonly string[];
      };
    }
  | { urlSecret: { secret: string; param?: string; allowFrom?: readonly string[] } };

const modes = ['mtls', 'proxy', 'urlSecret'] as const;

export function resolveAuth(auth: unknown): ResolvedAuth {
  if (typeof auth !== 'object' || auth === null || Array.isArray(auth))
    throw new PixhookConfigError(
      `pixhook: \`auth\` is required: one of { mtls: { ca } }, { proxy: { from, secret } } or { urlSecret: { secret } }, got ${describeGiven(auth)}.`,
    );
  const given = Object.keys(auth).filter((key) => (auth as Record<string, unknown>)[key] !== undefined);
  const unknown = given.filter((key) => !(modes as readonly string[]).includes(key));
  if (unknown.length > 0)
    throw new PixhookConfigError(`pixhook: \`auth.${unknown[0]!}\` is not an auth mode; use mtls, proxy or urlSecret.`);
  if (given.length !== 1)
    throw new PixhookConfigError(
      `pixhook: \`auth\` must name exactly one mode (mtls, proxy or urlSecret), got ${given.length === 0 ? 'none' : given.join(' and ')}.`,
    );
  const mode = given[0] as (typeof modes)[number];
  const value = (auth as Record<string, unknown>)[mode];
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new PixhookConfigError(`pixhook: \`auth.${mode}\` must be an object, got ${describeGiven(value)}.`);
  const options = value as Record<string, unknown>;
  if (mode === 'mtls') return mtlsAuth(options);
  if (mode === 'proxy') return proxyAuth(options);
  return urlSecretAuth(options);
}
