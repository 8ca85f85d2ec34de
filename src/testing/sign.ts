import { signatureHeader, signSha256, type SigningScheme } from '../index.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The `X-Signature` value the gateway sends: `sha256=` + lowercase hex HMAC-SHA256 of the exact bytes. */
export async function sign(body: Uint8Array | string, secret: string): Promise<string> {
  return signSha256(body, secret);
}

export { signTimestamped } from '../index.js';

export interface SignedRequestHeaders {
  'content-type': 'application/json';
  /** The signature, under `x-signature` (or the header `signing` names). */
  [name: string]: string;
}

/** A delivery ready for any test client: send `bytes` (or `body`) with `headers`. */
export interface SignedRequest {
  /** The body as text (what most test clients take). */
  body: string;
  /** The exact bytes that were signed. */
  bytes: Uint8Array;
  headers: SignedRequestHeaders;
}

export interface SignedRequestOptions {
  /** Send this `X-Signature` instead of the right one (forged or malformed deliveries). */
  signature?: string;
  /** Extra headers; `content-type` and the signature header always win (use `signature` to forge one). */
  headers?: Record<string, string>;
  /** Sign as a sibling brand does: `{ scheme: 'timestamped', header: 'vexy-signature' }`. Default: `X-Signature: sha256=…`. */
  signing?: SigningScheme;
}

/** Body bytes of a delivery: bytes and strings as they are, anything else as `JSON.stringify` would send it. */
export function toBodyBytes(body: unknown): Uint8Array {
  if (body instanceof Uint8Array) return body;
  if (typeof body === 'string') return encoder.encode(body);
  return encoder.encode(JSON.stringify(body));
}

/**
 * Serializes and signs a payload like the gateway does. A string or `Uint8Array` is taken as the exact
 * body (so a test can sign pretty-printed, unicode or deliberately broken bodies).
 */
export async function signedRequest(payload: unknown, secret: string, options: SignedRequestOptions = {}): Promise<SignedRequest> {
  const bytes = toBodyBytes(payload);
  const signed = await signatureHeader(options.signing ?? { scheme: 'sha256' }, bytes, secret);
  return {
    body: decoder.decode(bytes),
    bytes,
    headers: { ...options.headers, 'content-type': 'application/json', [signed.name]: options.signature ?? signed.value },
  };
}
