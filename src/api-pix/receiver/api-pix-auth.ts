import type { PeerConnection, PeerTls } from '../../intake/peer-connection.js';
import { describeGiven } from '../../shared/option-checks.js';
import { PixhookConfigError } from '../../shared/pixhook-error.js';
import { readHeader, type HeaderSource } from '../../shared/read-header.js';
import { addressList } from './address-list.js';
import type { MaybePromise } from '../../shared/maybe-promise.js';

/** PEM text (one or several certificates), or a list of them. Bytes of a PEM file are accepted too. */
export type CertificateSource = string | Uint8Array | readonly (string | Uint8Array)[];

/**
 * How the PSP's calls are authenticated: exactly one of the three. The standard's way is `mtls`.
 * - `mtls`: Node terminates TLS (see `createMtlsServer` in `pixhook/node`); the client certificate must
 *   chain to `ca`, and to a pinned subject name or SHA-256 fingerprint when given.
 * - `proxy`: nginx or a load balancer terminated TLS and checked the certificate; it passes its verdict
 *   and the fingerprint in headers, trusted only from the `from` addresses.
 * - `urlSecret`: no mTLS (Efí allows it): a secret in the registered URL's query, with an optional allow-list.
 */
export type ApiPixAuth =
  | { mtls: { ca: CertificateSource; names?: readonly string[]; fingerprints?: readonly string[] } }
  | {
      proxy: {
        /** The proxy's addresses or CIDR blocks: the only peers whose headers are believed. */
        from: readonly string[];
        /** Default `x-ssl-client-verify` (nginx: `proxy_set_header X-SSL-Client-Verify $ssl_client_verify;`). */
        verifyHeader?: string;
        /** Default `x-ssl-client-fingerprint` (nginx's `$ssl_client_fingerprint`, SHA-1 hex). */
        fingerprintHeader?: string;
        /** Pinned fingerprints (as the proxy writes them; case and `:` separators do not matter). */
        fingerprints?: readonly string[];
      };
    }
  | { urlSecret: { secret: string; param?: string; allowFrom?: readonly string[] } };

export type AuthFailure = 'client_certificate_required' | 'client_certificate_rejected' | 'url_secret_mismatch' | 'address_not_allowed';

interface AuthCheckInput {
  headers: HeaderSource;
  url: string | undefined;
  peer: PeerConnection | undefined;
}

interface ResolvedAuth {
  mode: 'mtls' | 'proxy' | 'urlSecret';
  /** True when the adapter must hand over the TLS socket's verdict (`mtls`). */
  needsTls: boolean;
  /** True when the check reads the peer's address (`proxy`, `urlSecret.allowFrom`): a runtime that gives none must say so. */
  needsAddress: boolean;
  /** `undefined` when the request is authenticated; otherwise the reason, and a private hint for logs. */
  check(input: AuthCheckInput): MaybePromise<{ reason: AuthFailure; hint: string } | undefined>;
}

const modes = ['mtls', 'proxy', 'urlSecret'] as const;

export function resolveAuth(auth: unknown): ResolvedAuth {
  if (typeof auth !== 'object' || auth === null || Array.isArray(auth))
    throw new PixhookConfigError(
      `pixhook: \`auth\` is required: one of { mtls: { ca } }, { proxy: { from } } or { urlSecret: { secret } }, got ${describeGiven(auth)}.`,
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

function refuseUnknown(mode: string, options: Record<string, unknown>, known: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (!known.includes(key) && options[key] !== undefined)
      throw new PixhookConfigError(`pixhook: \`auth.${mode}.${key}\` is not an option (known: ${known.join(', ')}).`);
  }
}

/** An optional non-empty list of non-empty strings. */
function stringList(name: string, value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.some((v) => typeof v !== 'string' || v.trim() === ''))
    throw new PixhookConfigError(`pixhook: \`${name}\` must be a non-empty list of non-empty strings, got ${describeGiven(value)}.`);
  return value as string[];
}

/** Hex of a fingerprint in any of the usual spellings (`AB:CD…`, `abcd…`), or undefined. */
function normalizeFingerprint(text: string): string | undefined {
  const hex = text.replace(/[:\s]/g, '').toLowerCase();
  return /^[0-9a-f]{40}$|^[0-9a-f]{64}$/.test(hex) ? hex : undefined;
}

function fingerprintSet(name: string, value: unknown, sha256Only: boolean): ReadonlySet<string> | undefined {
  const list = stringList(name, value);
  if (list === undefined) return undefined;
  return new Set(
    list.map((entry, i) => {
      const hex = normalizeFingerprint(entry);
      if (hex === undefined || (sha256Only && hex.length !== 64))
        throw new PixhookConfigError(
          `pixhook: \`${name}[${String(i)}]\` must be a ${sha256Only ? 'SHA-256' : 'SHA-1 or SHA-256'} fingerprint in hex.`,
        );
      return hex;
    }),
  );
}

const pemPattern = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/g;

/** The DER bytes of every certificate in the PEM text: plain base64 between the markers, no ASN.1 parsed. */
function certificatesOf(source: unknown): Uint8Array<ArrayBuffer>[] {
  const sources = Array.isArray(source) ? (source as unknown[]) : [source];
  const out: Uint8Array<ArrayBuffer>[] = [];
  for (const entry of sources) {
    const text = typeof entry === 'string' ? entry : entry instanceof Uint8Array ? new TextDecoder().decode(entry) : undefined;
    if (text === undefined) return [];
    for (const match of text.matchAll(pemPattern)) {
      const binary = atob(match[1]!.replace(/\s/g, ''));
      out.push(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
    }
  }
  return out;
}

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

function mtlsAuth(options: Record<string, unknown>): ResolvedAuth {
  refuseUnknown('mtls', options, ['ca', 'names', 'fingerprints']);
  const certificates = certificatesOf(options['ca']);
  if (certificates.length === 0)
    throw new PixhookConfigError(
      `pixhook: \`auth.mtls.ca\` must be the PSP's CA certificate(s) in PEM (-----BEGIN CERTIFICATE-----), as text or bytes; none was found.`,
    );
  const names = stringList('auth.mtls.names', options['names']);
  const pinned = fingerprintSet('auth.mtls.fingerprints', options['fingerprints'], true);
  // Web Crypto digests are asynchronous: computed once; only requests before they are ready wait for them.
  let cas: ReadonlySet<string> | undefined;
  const caPrints = Promise.all(certificates.map(sha256Hex)).then((list) => (cas = new Set(list)));
  caPrints.catch(() => undefined);
  type Refusal = { reason: AuthFailure; hint: string } | undefined;
  const decide = (tls: PeerTls, trusted: ReadonlySet<string>): Refusal => {
    const chain = tls.chain ?? [];
    // Node checked the chain against the server's own `ca`; this checks it is the one this receiver trusts.
    if (!chain.some((print) => trusted.has(print)))
      return { reason: 'client_certificate_rejected', hint: 'the certificate does not chain to auth.mtls.ca' };
    if (pinned !== undefined && !pinned.has(chain[0] ?? ''))
      return { reason: 'client_certificate_rejected', hint: 'the certificate is not one of auth.mtls.fingerprints' };
    if (names !== undefined && !names.some((name) => certificateNames(tls.subjectName, tls.altNames).includes(name)))
      return { reason: 'client_certificate_rejected', hint: 'the certificate names none of auth.mtls.names' };
    return undefined;
  };
  return {
    mode: 'mtls',
    needsTls: true,
    needsAddress: false,
    check({ peer }) {
      const tls = peer?.tls;
      if (tls === undefined)
        return { reason: 'client_certificate_required', hint: 'the request did not come over a TLS socket that Node terminated' };
      if (!tls.presented) return { reason: 'client_certificate_required', hint: 'no client certificate was presented' };
      if (!tls.authorized)
        return { reason: 'client_certificate_rejected', hint: `the TLS stack refused it: ${tls.error ?? 'unauthorized'}` };
      return cas !== undefined ? decide(tls, cas) : caPrints.then((ready) => decide(tls, ready));
    },
  };
}

/** The subject CN and the DNS / URI / email alternative names. */
function certificateNames(subjectName: string | undefined, altNames: string | undefined): string[] {
  const names = subjectName === undefined ? [] : [subjectName];
  for (const part of (altNames ?? '').split(',')) {
    const colon = part.indexOf(':');
    if (colon !== -1) names.push(part.slice(colon + 1).trim());
  }
  return names;
}

function proxyAuth(options: Record<string, unknown>): ResolvedAuth {
  refuseUnknown('proxy', options, ['from', 'verifyHeader', 'fingerprintHeader', 'fingerprints']);
  const from = addressList('auth.proxy.from', options['from']);
  const header = (name: string, fallback: string): string => {
    const value = options[name];
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || !/^[A-Za-z0-9-]+$/.test(value))
      throw new PixhookConfigError(`pixhook: \`auth.proxy.${name}\` must be a header name, got ${describeGiven(value)}.`);
    return value.toLowerCase();
  };
  const verifyHeader = header('verifyHeader', 'x-ssl-client-verify');
  const fingerprintHeader = header('fingerprintHeader', 'x-ssl-client-fingerprint');
  if (verifyHeader === fingerprintHeader)
    throw new PixhookConfigError('pixhook: `auth.proxy.verifyHeader` and `auth.proxy.fingerprintHeader` must be two different headers.');
  const pinned = fingerprintSet('auth.proxy.fingerprints', options['fingerprints'], false);
  return {
    mode: 'proxy',
    needsTls: false,
    needsAddress: true,
    check({ headers, peer }) {
      // Only the proxy may speak for the certificate: anyone else sending its headers is refused.
      if (!from.has(peer?.address)) return { reason: 'address_not_allowed', hint: 'the peer is not one of auth.proxy.from' };
      const verdict = readHeader(headers, verifyHeader);
      if (verdict === undefined || verdict === '' || verdict === 'NONE')
        return {
          reason: 'client_certificate_required',
          hint: `the proxy reports no client certificate (${verifyHeader})`,
        };
      if (verdict !== 'SUCCESS')
        return {
          reason: 'client_certificate_rejected',
          hint: `the proxy reports the certificate failed (${verifyHeader})`,
        };
      if (pinned !== undefined) {
        const print = normalizeFingerprint(readHeader(headers, fingerprintHeader) ?? '');
        if (print === undefined || !pinned.has(print))
          return { reason: 'client_certificate_rejected', hint: 'the fingerprint is not one of auth.proxy.fingerprints' };
      }
      return undefined;
    },
  };
}

function urlSecretAuth(options: Record<string, unknown>): ResolvedAuth {
  refuseUnknown('urlSecret', options, ['secret', 'param', 'allowFrom']);
  const secret = options['secret'];
  if (typeof secret !== 'string' || secret.trim().length < 16)
    throw new PixhookConfigError(
      'pixhook: `auth.urlSecret.secret` must be a string of at least 16 characters (a random secret placed in the URL).',
    );
  const param = options['param'] ?? 'secret';
  if (typeof param !== 'string' || param === '')
    throw new PixhookConfigError(`pixhook: \`auth.urlSecret.param\` must be a query parameter name, got ${describeGiven(param)}.`);
  const allowFrom = options['allowFrom'] === undefined ? undefined : addressList('auth.urlSecret.allowFrom', options['allowFrom']);
  const encoder = new TextEncoder();
  const expected = encoder.encode(secret);
  return {
    mode: 'urlSecret',
    needsTls: false,
    needsAddress: allowFrom !== undefined,
    check({ url, peer }) {
      if (allowFrom !== undefined && !allowFrom.has(peer?.address))
        return { reason: 'address_not_allowed', hint: 'the peer is not one of auth.urlSecret.allowFrom' };
      const given = queryParam(url, param);
      if (given === undefined || !sameBytes(encoder.encode(given), expected))
        return {
          reason: 'url_secret_mismatch',
          hint: given === undefined ? `no ${param} in the query` : `${param} does not match`,
        };
      return undefined;
    },
  };
}

function queryParam(url: string | undefined, param: string): string | undefined {
  if (url === undefined) return undefined;
  const at = url.indexOf('?');
  if (at === -1) return undefined;
  try {
    return new URLSearchParams(url.slice(at + 1)).get(param) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Constant time in the secret's length: every byte is compared whatever the first difference. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) diff |= (a[i % Math.max(a.length, 1)] ?? 0) ^ b[i]!;
  return diff === 0;
}
