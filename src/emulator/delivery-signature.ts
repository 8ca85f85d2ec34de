import { createHmac } from 'node:crypto';
import { mustBe } from '../shared/option-checks.js';

/**
 * How deliveries are signed. `sha256` (default): the interface's `X-Signature: sha256=<hex>`.
 * `timestamped`: a sibling brand's `<header>: t=<unix seconds>,v1=<hex HMAC of "t.body">`, signed
 * again at each attempt so a late retry still carries a fresh timestamp.
 */
export type EmulatorSignature = { scheme: 'sha256' } | { scheme: 'timestamped'; header: string };

/** The signature header of one attempt. */
export function signDelivery(signature: EmulatorSignature, secret: string, body: string, nowMs: number): { name: string; value: string } {
  if (signature.scheme === 'sha256') {
    return { name: 'x-signature', value: `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` };
  }
  const t = Math.floor(nowMs / 1000);
  return { name: signature.header.toLowerCase(), value: `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}` };
}

export function checkSignatureOption(signature: EmulatorSignature | undefined): EmulatorSignature {
  if (signature === undefined) return { scheme: 'sha256' };
  if (signature.scheme === 'sha256') return signature;
  if (signature.scheme === 'timestamped' && typeof signature.header === 'string' && /^[A-Za-z0-9-]+$/.test(signature.header))
    return signature;
  throw mustBe('signature', '{ scheme: "sha256" } or { scheme: "timestamped", header: "<Brand>-Signature" }', signature);
}
