import { checkSigningSecret } from './check-secret.js';
import { bytesToHex } from './hex.js';
import { hmacSign } from './hmac-sha256.js';

const encoder = new TextEncoder();

/** How a sender signs: the interface's `sha256` scheme, or a sibling brand's `timestamped` one in its own header. */
export type SigningScheme = { scheme: 'sha256'; header?: string } | { scheme: 'timestamped'; header: string };

/** `sha256=` + lowercase hex HMAC-SHA256 of the exact bytes: the interface's `X-Signature` value. Rejects a secret that cannot be one. */
export async function signSha256(body: Uint8Array | string, secret: string): Promise<string> {
  checkSigningSecret(secret);
  return `sha256=${bytesToHex(await hmacSign(secret, typeof body === 'string' ? encoder.encode(body) : body))}`;
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`: the sibling brand's header value. Rejects a secret that cannot be one. */
export async function signTimestamped(input: { body: Uint8Array | string; secret: string; timestamp?: number }): Promise<string> {
  checkSigningSecret(input.secret);
  const t = input.timestamp ?? Math.floor(Date.now() / 1000);
  const bytes = typeof input.body === 'string' ? encoder.encode(input.body) : input.body;
  const prefix = encoder.encode(`${t}.`);
  const signed = new Uint8Array(prefix.byteLength + bytes.byteLength);
  signed.set(prefix);
  signed.set(bytes, prefix.byteLength);
  return `t=${t},v1=${bytesToHex(await hmacSign(input.secret, signed))}`;
}

/** The header name and value a delivery carries under `scheme`. */
export async function signatureHeader(
  scheme: SigningScheme,
  body: Uint8Array | string,
  secret: string,
): Promise<{ name: string; value: string }> {
  if (scheme.scheme === 'timestamped') return { name: scheme.header.toLowerCase(), value: await signTimestamped({ body, secret }) };
  return { name: (scheme.header ?? 'x-signature').toLowerCase(), value: await signSha256(body, secret) };
}
