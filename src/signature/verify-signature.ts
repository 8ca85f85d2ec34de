import { checkSecretOption } from './check-secret.js';
import { decodeHex } from './hex.js';
import { hmacVerify, hmacVerifySync } from './hmac-sha256.js';

export const signaturePrefix = 'sha256=';

export type SignatureFailureReason = 'signature_missing' | 'signature_malformed' | 'signature_mismatch' | 'signature_expired';

export type SignatureResult =
  | { ok: true; secretIndex: number }
  | {
      ok: false;
      reason: SignatureFailureReason;
      /** Safe to send back to the sender. */
      message: string;
      /** For the merchant's logs only: likely causes (never the secret itself). */
      hint?: string;
    };

export interface VerifySignatureInput {
  /** The exact raw bytes of the request body (a string is taken as its UTF-8 bytes). */
  body: Uint8Array | string;
  /** The `X-Signature` header value: `sha256=<64 hex>`. */
  signature: string | null | undefined;
  /** One secret, or several while rotating keys. */
  secret: string | readonly string[];
}

const encoder = new TextEncoder();
const digestHexLength = 64;
const matchedFirst: SignatureResult = Object.freeze({ ok: true, secretIndex: 0 });

/**
 * Verifies `X-Signature: sha256=<hex HMAC-SHA256>` over the exact raw bytes, against one or more
 * secrets, comparing decoded bytes in constant time. Never says which byte differed. Rejects with a
 * `PixhookConfigError` when a secret cannot be one (empty, NUL-only, not a string, "undefined").
 */
export function verifySignature(input: VerifySignatureInput): Promise<SignatureResult> {
  try {
    // A promise (Web Crypto) is returned as is.
    return Promise.resolve(verifySignatureNow(input));
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/** `verifySignature`, synchronous where node:crypto exists (a promise only on Web Crypto). Throws on a secret that cannot be one. */
export function verifySignatureNow(input: VerifySignatureInput): SignatureResult | Promise<SignatureResult> {
  checkSecretOption(input.secret);
  return verifyCheckedSecret(input);
}

/** `verifySignatureNow` for secrets already checked (the receiver checks its own once, at construction). */
export function verifyCheckedSecret(input: VerifySignatureInput): SignatureResult | Promise<SignatureResult> {
  const given = givenDigest(input.signature);
  if (!(given instanceof Uint8Array)) return given;

  const body: unknown = input.body;
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    return fail('signature_mismatch', mismatchMessage, parsedBodyHint);
  }
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  if (hmacVerifySync) {
    // One secret (the common case) without an array around it.
    if (typeof input.secret === 'string') {
      if (hmacVerifySync(input.secret, bytes, given)) return matchedFirst;
    } else {
      for (let i = 0; i < input.secret.length; i++)
        if (hmacVerifySync(input.secret[i] as string, bytes, given)) return { ok: true, secretIndex: i };
    }
    return fail('signature_mismatch', mismatchMessage, secretHint(secretList(input.secret)));
  }
  return verifyWithWebCrypto(bytes, given, secretList(input.secret));
}

/** The header's digest, decoded (one pass checks and decodes the hex digits), or why it is none. */
export function givenDigest(signature: string | null | undefined): Uint8Array | SignatureResult {
  const header = signature?.trim();
  if (!header) return fail('signature_missing', 'The X-Signature header is missing.');
  const given =
    header.length === signaturePrefix.length + digestHexLength &&
    (header.startsWith(signaturePrefix) || header.slice(0, signaturePrefix.length).toLowerCase() === signaturePrefix)
      ? decodeHex(header, signaturePrefix.length)
      : undefined;
  if (given !== undefined) return given;
  return fail(
    'signature_malformed',
    'The X-Signature header must be "sha256=" followed by 64 hexadecimal characters.',
    // Node joins repeated headers with ", ": the value then holds two signatures.
    header.includes(',') ? 'Several X-Signature headers arrived (joined with ", "); the sender must send one.' : undefined,
  );
}

/** The secrets as a list, made only off the one-secret fast path. */
function secretList(secret: string | readonly string[]): readonly string[] {
  return typeof secret === 'string' ? [secret] : secret;
}

async function verifyWithWebCrypto(bytes: Uint8Array, given: Uint8Array, secrets: readonly string[]): Promise<SignatureResult> {
  for (let i = 0; i < secrets.length; i++) {
    if (await hmacVerify(secrets[i] as string, bytes, given)) return { ok: true, secretIndex: i };
  }
  return fail('signature_mismatch', mismatchMessage, secretHint(secrets));
}

export const mismatchMessage =
  'No signature matched the expected signature for the payload. ' +
  'Is the raw request body passed byte for byte, and is the webhook secret the right one?';

export const parsedBodyHint =
  'The body is a parsed object, not the raw bytes: a body parser (such as express.json()) ran first. ' +
  'Verify the exact bytes the gateway sent; re-serialized JSON never matches.';

export function secretHint(secrets: readonly string[]): string | undefined {
  if (secrets.some((s) => s !== s.trim())) {
    return 'A configured secret has leading or trailing whitespace; the gateway signs with the bare secret.';
  }
  return undefined;
}

export function fail(reason: SignatureFailureReason, message: string, hint?: string): SignatureResult {
  return hint === undefined ? { ok: false, reason, message } : { ok: false, reason, message, hint };
}
