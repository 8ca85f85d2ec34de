import { checkSecretOption } from './check-secret.js';
import { decodeHex } from './hex.js';
import { hmacVerify } from './hmac-sha256.js';
import { fail, mismatchMessage, parsedBodyHint, secretHint, type SignatureResult, type VerifySignatureInput } from './verify-signature.js';

export interface VerifyTimestampedSignatureInput extends VerifySignatureInput {
  /** Oldest (and furthest in the future) a timestamp may be, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The clock, in milliseconds (tests inject one). */
  now?: () => number;
}

const encoder = new TextEncoder();

/**
 * The scheme a sibling brand uses: `<Brand>-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
 * "t.body">` (several `v1` while the sender rotates). The timestamp bounds replays of a captured
 * delivery; the bytes are still the exact raw body. Rejects with a `PixhookConfigError` when a
 * secret cannot be one (empty, NUL-only, not a string, "undefined").
 */
export async function verifyTimestampedSignature(input: VerifyTimestampedSignatureInput): Promise<SignatureResult> {
  checkSecretOption(input.secret);
  return verifyCheckedTimestamped(input);
}

/** `verifyTimestampedSignature` for secrets already checked (the receiver checks its own once, at construction). */
export async function verifyCheckedTimestamped(input: VerifyTimestampedSignatureInput): Promise<SignatureResult> {
  const header = input.signature?.trim();
  if (!header) return fail('signature_missing', 'The signature header is missing.');

  let timestamp: string | undefined;
  const candidates: Uint8Array[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    const name = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (name === 't' && /^\d{1,12}$/.test(value)) timestamp = value;
    else if (name === 'v1') {
      const digest = value.length === 64 ? decodeHex(value) : undefined;
      if (digest) candidates.push(digest);
    }
  }
  if (timestamp === undefined || candidates.length === 0) {
    return fail('signature_malformed', 'The signature header must be "t=<unix seconds>,v1=<64 hexadecimal characters>".');
  }

  const ageSeconds = Math.abs((input.now ?? Date.now)() / 1000 - Number(timestamp));
  if (ageSeconds > (input.toleranceSeconds ?? 300)) {
    return fail(
      'signature_expired',
      'The signature timestamp is outside the accepted tolerance.',
      'A replayed delivery, or a clock far off on one side; compare the server clock with t=.',
    );
  }

  const body: unknown = input.body;
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) return fail('signature_mismatch', mismatchMessage, parsedBodyHint);
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  const prefix = encoder.encode(`${timestamp}.`);
  const signed = new Uint8Array(prefix.length + bytes.length);
  signed.set(prefix);
  signed.set(bytes, prefix.length);

  const secrets = typeof input.secret === 'string' ? [input.secret] : input.secret;
  for (let i = 0; i < secrets.length; i++) {
    for (const candidate of candidates) {
      if (await hmacVerify(secrets[i] as string, signed, candidate)) return { ok: true, secretIndex: i };
    }
  }
  return fail('signature_mismatch', mismatchMessage, secretHint(secrets));
}
