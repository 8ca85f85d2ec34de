// The contract's auth cases, per mode: who may call, and the 401/403 answers (with nothing handled) for the rest.
import type { ApiPixAuth } from '../../src/api-pix/index.js';
import { apiPixBody, apiPixPix, seededRandom } from '../../src/testing/index.js';
import { handshakeRefused, post, type ApiPixCase, type CaseRequest } from './api-pix-case.js';
import type { AuthMode, Certificates } from './api-pix-targets.js';
import { proxySecret, urlSecret } from './fixtures.js';

const body = apiPixBody([apiPixPix({ random: seededRandom(29), paidAt: '2026-11-27T05:00:00.000Z' })]);
/** The PSP certificate's SHA-1 as nginx's `$ssl_client_fingerprint` writes it. */
const proxyFingerprint = '8f3a1c2d4e5b6a7980f1e2d3c4b5a69788776655';
/** A loopback address that is not 127.0.0.1: outside a `from` / `allowFrom` of 127.0.0.1. */
const elsewhere = '127.0.0.2';

export const defaultAuth: Record<AuthMode, (certs: Certificates) => ApiPixAuth> = {
  urlSecret: () => ({ urlSecret: { secret: urlSecret } }),
  proxy: () => ({ proxy: { from: ['127.0.0.1'], secret: proxySecret } }),
  mtls: (certs) => ({ mtls: { ca: certs.pspCa.cert, names: ['webhook.psp.example'] } }),
};

/** The mode's valid credentials on a request that is not `raw`: the query secret, the proxy's verdict, the PSP's certificate. */
export function withCredentials(mode: AuthMode, request: CaseRequest): CaseRequest {
  if (request.raw === true) return request;
  if (mode === 'urlSecret') {
    const path = request.path ?? '';
    return { ...request, path: `${path}${path.includes('?') ? '&' : '?'}secret=${urlSecret}` };
  }
  if (mode === 'proxy')
    return {
      ...request,
      headers: {
        'x-pixhook-proxy-secret': proxySecret,
        'x-ssl-client-verify': 'SUCCESS',
        'x-ssl-client-fingerprint': proxyFingerprint,
        ...request.headers,
      },
    };
  return { ...request, client: request.client ?? 'psp' };
}

const raw = (request: CaseRequest): CaseRequest => ({ ...request, raw: true });
const refused = (status: number, reason: string) => ({ status, reason });
/** What the proxy's mTLS block sends: its secret, its verdict, the fingerprint. */
const proxyHeaders = (verify: string, fingerprint = proxyFingerprint) => ({
  'x-pixhook-proxy-secret': proxySecret,
  'x-ssl-client-verify': verify,
  'x-ssl-client-fingerprint': fingerprint,
});

const urlSecretCases: ApiPixCase[] = [
  {
    name: 'no URL secret: 401 url_secret_mismatch',
    steps: [{ send: raw(post(body)), expect: refused(401, 'url_secret_mismatch') }],
    handled: 0,
  },
  {
    name: 'a wrong URL secret of the same length: 401 url_secret_mismatch',
    steps: [{ send: raw(post(body, `/pix?secret=${urlSecret.slice(1)}x`)), expect: refused(401, 'url_secret_mismatch') }],
    handled: 0,
  },
  {
    name: 'a prefix of the URL secret: 401 url_secret_mismatch',
    steps: [{ send: raw(post(body, `/pix?secret=${urlSecret.slice(0, 8)}`)), expect: refused(401, 'url_secret_mismatch') }],
    handled: 0,
  },
  {
    name: 'the secret under another parameter than `param`: 401; under `param`: handled',
    auth: () => ({ urlSecret: { secret: urlSecret, param: 'token' } }),
    steps: [
      { send: raw(post(body, `/pix?secret=${urlSecret}`)), expect: refused(401, 'url_secret_mismatch') },
      { send: raw(post(body, `/pix?token=${urlSecret}`)), expect: { status: 200 } },
    ],
    handled: 1,
  },
  // PSPs call the registered URL with `/pix` appended to the string: `?secret=<s>` arrives as `?secret=<s>/pix`.
  {
    name: 'the PSP appended /pix to a registered ?secret=<s> (called as ?secret=<s>/pix): handled',
    steps: [{ send: raw(post(body, `?secret=${urlSecret}/pix`)), expect: { status: 200 } }],
    handled: 1,
  },
  {
    name: 'the suffix split off the query is /pix, /rec or /cobr, with or without a slash',
    steps: [
      { send: raw(post(body, `?secret=${urlSecret}/pix/`)), expect: { status: 200 } },
      { send: raw(post(body, `?secret=${urlSecret}/rec`)), expect: { status: 200, reason: 'duplicate' } },
      { send: raw(post(body, `?secret=${urlSecret}/cobr/`)), expect: { status: 200, reason: 'duplicate' } },
    ],
    handled: 1,
  },
  {
    name: 'a wrong secret with /pix appended, or the secret with another suffix: 401 url_secret_mismatch',
    steps: [
      { send: raw(post(body, `?secret=${urlSecret.slice(1)}x/pix`)), expect: refused(401, 'url_secret_mismatch') },
      { send: raw(post(body, `?secret=${urlSecret}/other`)), expect: refused(401, 'url_secret_mismatch') },
      { send: raw(post(body, `?secret=${urlSecret}pix`)), expect: refused(401, 'url_secret_mismatch') },
    ],
    handled: 0,
  },
  {
    name: 'the secret as a path segment (registered …/webhooks/bank/<s>, called …/<s>/pix): handled; a wrong one: 401',
    steps: [
      { send: raw(post(body, `/${urlSecret.slice(0, -1)}y/pix`)), expect: refused(401, 'url_secret_mismatch') },
      { send: raw(post(body, `/${urlSecret}/pix`)), expect: { status: 200 } },
      { send: raw(post(body, `/${urlSecret}/pix/`)), expect: { status: 200, reason: 'duplicate' } },
    ],
    handled: 1,
  },
  {
    name: 'a caller outside allowFrom with the right secret: 403 address_not_allowed',
    needsPeerAddress: true,
    auth: () => ({ urlSecret: { secret: urlSecret, allowFrom: ['127.0.0.1'] } }),
    steps: [
      { send: { ...post(body), from: elsewhere }, expect: refused(403, 'address_not_allowed') },
      { send: post(body), expect: { status: 200 } },
    ],
    handled: 1,
  },
];

const proxyCases: ApiPixCase[] = [
  {
    name: "the proxy's verdict without its secret (a request through another site block of the proxy): 401 proxy_secret_mismatch",
    steps: [
      {
        send: raw(post(body, '/pix', { 'x-ssl-client-verify': 'SUCCESS', 'x-ssl-client-fingerprint': proxyFingerprint })),
        expect: refused(401, 'proxy_secret_mismatch'),
      },
    ],
    handled: 0,
  },
  {
    name: 'a guessed proxy secret of the same length, or a prefix of it: 401 proxy_secret_mismatch',
    steps: [
      {
        send: raw(post(body, '/pix', { ...proxyHeaders('SUCCESS'), 'x-pixhook-proxy-secret': `${proxySecret.slice(1)}x` })),
        expect: refused(401, 'proxy_secret_mismatch'),
      },
      {
        send: raw(post(body, '/pix', { ...proxyHeaders('SUCCESS'), 'x-pixhook-proxy-secret': proxySecret.slice(0, 8) })),
        expect: refused(401, 'proxy_secret_mismatch'),
      },
    ],
    handled: 0,
  },
  {
    name: 'a custom secretHeader is the one read',
    auth: () => ({ proxy: { from: ['127.0.0.1'], secret: proxySecret, secretHeader: 'X-Front-Secret' } }),
    steps: [
      { send: raw(post(body, '/pix', proxyHeaders('SUCCESS'))), expect: refused(401, 'proxy_secret_mismatch') },
      {
        send: raw(post(body, '/pix', { 'x-front-secret': proxySecret, 'x-ssl-client-verify': 'SUCCESS' })),
        expect: { status: 200 },
      },
    ],
    handled: 1,
  },
  {
    name: 'no verdict header from the proxy: 401 client_certificate_required',
    steps: [
      { send: raw(post(body, '/pix', { 'x-pixhook-proxy-secret': proxySecret })), expect: refused(401, 'client_certificate_required') },
    ],
    handled: 0,
  },
  {
    name: "the proxy's verdict NONE: 401 client_certificate_required",
    steps: [{ send: raw(post(body, '/pix', proxyHeaders('NONE'))), expect: refused(401, 'client_certificate_required') }],
    handled: 0,
  },
  {
    name: "the proxy's verdict FAILED: 401 client_certificate_rejected",
    steps: [
      {
        send: raw(post(body, '/pix', proxyHeaders('FAILED:certificate has expired'))),
        expect: refused(401, 'client_certificate_rejected'),
      },
    ],
    handled: 0,
  },
  {
    name: 'a pinned fingerprint: another one is 401 client_certificate_rejected; the pinned one (any spelling) is handled',
    auth: () => ({
      proxy: { from: ['127.0.0.1'], secret: proxySecret, fingerprints: [proxyFingerprint.toUpperCase().replace(/(..)(?!$)/g, '$1:')] },
    }),
    steps: [
      { send: raw(post(body, '/pix', proxyHeaders('SUCCESS', 'aa'.repeat(20)))), expect: refused(401, 'client_certificate_rejected') },
      { send: raw(post(body, '/pix', proxyHeaders('SUCCESS'))), expect: { status: 200 } },
    ],
    handled: 1,
  },
  {
    name: "the proxy's headers sent from outside `from` (bypassing it): 403 address_not_allowed",
    steps: [
      { send: { ...raw(post(body, '/pix', proxyHeaders('SUCCESS'))), from: elsewhere }, expect: refused(403, 'address_not_allowed') },
    ],
    handled: 0,
  },
  {
    name: 'custom verdict and fingerprint header names are the ones read',
    auth: () => ({
      proxy: {
        from: ['127.0.0.1/32'],
        secret: proxySecret,
        verifyHeader: 'X-Client-Verify',
        fingerprintHeader: 'X-Client-Print',
        fingerprints: [proxyFingerprint],
      },
    }),
    steps: [
      { send: raw(post(body, '/pix', proxyHeaders('SUCCESS'))), expect: refused(401, 'client_certificate_required') },
      {
        send: raw(
          post(body, '/pix', { 'x-pixhook-proxy-secret': proxySecret, 'x-client-verify': 'SUCCESS', 'x-client-print': proxyFingerprint }),
        ),
        expect: { status: 200 },
      },
    ],
    handled: 1,
  },
];

const mtlsCases: ApiPixCase[] = [
  {
    name: 'the same app reached over plain HTTP: 401 client_certificate_required',
    steps: [{ send: { ...post(body), client: 'plain' }, expect: refused(401, 'client_certificate_required') }],
    handled: 0,
  },
  {
    name: 'a client without a certificate is refused in the TLS handshake',
    steps: [{ send: { ...post(body), client: 'none' }, expect: handshakeRefused }],
    handled: 0,
  },
  {
    name: 'a client certificate from another CA is refused in the TLS handshake',
    steps: [{ send: { ...post(body), client: 'stranger' }, expect: handshakeRefused }],
    handled: 0,
  },
  {
    name: "the PSP's CA but not the pinned name: 401 client_certificate_rejected",
    steps: [{ send: { ...post(body), client: 'impostor' }, expect: refused(401, 'client_certificate_rejected') }],
    handled: 0,
  },
  {
    name: 'a pinned SHA-256 fingerprint: another certificate is 401 client_certificate_rejected; the pinned one is handled',
    auth: (certs) => ({ mtls: { ca: certs.pspCa.cert, fingerprints: [certs.impostor.fingerprint256] } }),
    steps: [
      { send: { ...post(body), client: 'psp' }, expect: refused(401, 'client_certificate_rejected') },
      { send: { ...post(body), client: 'impostor' }, expect: { status: 200 } },
    ],
    handled: 1,
  },
  {
    name: 'without pins, any certificate from the CA is accepted',
    auth: (certs) => ({ mtls: { ca: certs.pspCa.cert } }),
    steps: [{ send: { ...post(body), client: 'impostor' }, expect: { status: 200 } }],
    handled: 1,
  },
];

export const authCases: Record<AuthMode, ApiPixCase[]> = { urlSecret: urlSecretCases, proxy: proxyCases, mtls: mtlsCases };
