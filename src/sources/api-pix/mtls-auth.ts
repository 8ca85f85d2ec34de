import type { PeerTls } from '../../shared/peer-connection.js';
import { PixhookConfigError } from '../../shared/pixhook-error.js';
import { fingerprintSet, refuseUnknown, stringList, type AuthRefusal, type ResolvedAuth } from './auth-checks.js';
import { certificateIdentity } from './certificate-names.js';

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

/** At most `max` names, for a log line. */
const listed = (names: readonly string[], max = 5): string =>
  names.length === 0 ? '(none)' : names.slice(0, max).join(', ') + (names.length > max ? ', …' : '');

export function mtlsAuth(options: Record<string, unknown>): ResolvedAuth {
  refuseUnknown('mtls', options, ['ca', 'names', 'fingerprints']);
  const certificates = certificatesOf(options['ca']);
  if (certificates.length === 0)
    throw new PixhookConfigError(
      `pixhook: \`auth.mtls.ca\` must be the PSP's CA certificate(s) in PEM (-----BEGIN CERTIFICATE-----), as text or bytes; none was found.`,
    );
  const names = stringList('auth.mtls.names', options['names'])?.map((name) => name.trim().toLowerCase());
  const pinned = fingerprintSet('auth.mtls.fingerprints', options['fingerprints'], true);
  // Web Crypto digests are asynchronous: computed once; only requests before they are ready wait for them.
  let cas: ReadonlySet<string> | undefined;
  const caPrints = Promise.all(certificates.map(sha256Hex)).then((list) => (cas = new Set(list)));
  caPrints.catch(() => undefined);
  const decide = (tls: PeerTls, trusted: ReadonlySet<string>): AuthRefusal | undefined => {
    const chain = tls.chain ?? [];
    // Node checked the chain against the server's own `ca`; this checks it is the one this receiver trusts.
    if (!chain.some((print) => trusted.has(print)))
      return {
        reason: 'client_certificate_rejected',
        hint: "the certificate does not chain to auth.mtls.ca: the server's TLS ca and the receiver's auth.mtls.ca differ",
      };
    if (pinned !== undefined && !pinned.has(chain[0] ?? ''))
      return {
        reason: 'client_certificate_rejected',
        hint: `the fingerprint pin refused it (the CA is right): SHA-256 ${chain[0] ?? '(none)'} is not one of auth.mtls.fingerprints`,
      };
    if (names !== undefined) {
      const identity = certificateIdentity(tls.subjectName, tls.altNames);
      if (!identity.names.some((name) => names.includes(name)))
        return {
          reason: 'client_certificate_rejected',
          hint:
            `the name pin refused it (the CA is right): the certificate's ${identity.from} ${listed(identity.names)} is none of ` +
            `auth.mtls.names (${listed(names)})` +
            (identity.from === 'DNS SAN' ? '; its CN is not read when it has DNS SANs (RFC 6125)' : ''),
        };
    }
    return undefined;
  };
  return {
    mode: 'mtls',
    needsTls: true,
    needsAddress: false,
    check({ peer }) {
      const tls = peer?.tls;
      if (tls === undefined)
        return {
          reason: 'client_certificate_required',
          hint: 'the request did not come over a TLS socket that Node terminated (createMtlsServer)',
        };
      if (!tls.presented) return { reason: 'client_certificate_required', hint: 'no client certificate was presented' };
      if (!tls.authorized)
        return { reason: 'client_certificate_rejected', hint: `the TLS stack refused it: ${tls.error ?? 'unauthorized'}; check the CA` };
      return cas !== undefined ? decide(tls, cas) : caPrints.then((ready) => decide(tls, ready));
    },
  };
}
