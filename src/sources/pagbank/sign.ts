import type { MaybePromise } from '../../shared/maybe-promise.js';
import { hexOf, seededSha256, type Digest } from '../shared/crypto.js';

/**
 * PagBank's `x-authenticity-token`: SHA-256 (hex) of `<token>-<raw body>`
 * (developer.pagbank.com.br/reference/confirmar-autenticidade-da-notificacao). Each digest is seeded with
 * `<token>-` (hashed once, here) and fed the body as it arrives; the verifier and the test kit's signer
 * both start theirs here.
 */
export function pagbankDigests(token: string): () => Digest {
  return seededSha256(`${token}-`);
}

/** Signs as PagBank does: the `x-authenticity-token` header's value for `body`. */
export function signPagBank(input: { token: string; body: string | Uint8Array }): MaybePromise<string> {
  const digest = pagbankDigests(input.token)();
  digest.update(input.body);
  return hexOf(digest.end());
}
