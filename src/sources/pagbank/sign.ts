import type { MaybePromise } from '../../shared/maybe-promise.js';
import { hexOf, seededSha256, type Digest } from '../shared/crypto.js';

/**
 * PagBank's `x-authenticity-token`: SHA-256 (hex) of `<token>-<raw body>`
 * (developer.pagbank.com.br/reference/confirmar-autenticidade-da-notificacao). The digest is seeded with
 * `<token>-` and fed the body as it arrives; the verifier and the test kit's signer both start it here.
 */
export function pagbankDigest(token: string): Digest {
  return pagbankDigests(token)();
}

/** `pagbankDigest` for one token, made once: each call's digest starts from `<token>-` already hashed. */
export function pagbankDigests(token: string): () => Digest {
  return seededSha256(`${token}-`);
}

/** Signs as PagBank does: the `x-authenticity-token` header's value for `body`. */
export function signPagBank(input: { token: string; body: string | Uint8Array }): MaybePromise<string> {
  const digest = pagbankDigest(input.token);
  digest.update(input.body);
  return hexOf(digest.end());
}
