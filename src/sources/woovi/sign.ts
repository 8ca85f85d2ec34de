import { rsaSign } from '../shared/crypto.js';

/**
 * Woovi signs the raw body: `x-webhook-signature` is RSA-SHA256 (`sha256WithRSAEncryption`) in base64
 * (developers.woovi.com/docs/webhook/seguranca/webhook-signature-validation). The content is the body's
 * bytes as sent: the verifier and this signer both take them unchanged.
 */
export function signWoovi(input: { privateKey: string; body: string | Uint8Array }): string {
  return rsaSign(input.privateKey, input.body);
}
