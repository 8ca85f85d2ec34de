import { digestsEqual, hmacStart, type HmacState } from './hmac-sha256.js';
import { fail, givenDigest, mismatchMessage, secretHint, type SignatureResult } from './verify-signature.js';

const matchedFirst: SignatureResult = Object.freeze({ ok: true, secretIndex: 0 });

/**
 * `X-Signature: sha256=…` checked as the body arrives: the header is read before the first byte, the
 * HMAC of every secret is updated with each chunk, and `end()` compares the digests in constant time
 * (the same answer `verifySignature` gives over the whole body). One secret, the common case, makes no array.
 */
export class SignatureStream {
  private readonly first: HmacState;
  private readonly others: HmacState[] | undefined;

  constructor(
    private readonly given: Uint8Array,
    private readonly secrets: readonly string[],
    start: (secret: string) => HmacState,
  ) {
    this.first = start(secrets[0] as string);
    this.others = secrets.length > 1 ? secrets.slice(1).map(start) : undefined;
  }

  update(chunk: Uint8Array): void {
    this.first.update(chunk);
    if (this.others !== undefined) for (const hmac of this.others) hmac.update(chunk);
  }

  /** The verdict over every byte fed; call once. */
  end(): SignatureResult {
    if (digestsEqual(this.first.digest(), this.given)) return matchedFirst;
    if (this.others !== undefined)
      for (let i = 0; i < this.others.length; i++)
        if (digestsEqual((this.others[i] as HmacState).digest(), this.given)) return { ok: true, secretIndex: i + 1 };
    return fail('signature_mismatch', mismatchMessage, secretHint(this.secrets));
  }
}

/**
 * A `SignatureStream` for this header and these (already checked) secrets, or undefined when the body
 * need not be hashed as it arrives: no node:crypto (Web Crypto hashes a whole body), or a header that
 * is missing or malformed, which the whole-body verifier answers with its own reason.
 */
export function startSignatureStream(signature: string | null | undefined, secrets: readonly string[]): SignatureStream | undefined {
  if (hmacStart === undefined || secrets.length === 0) return undefined;
  const given = givenDigest(signature);
  return given instanceof Uint8Array ? new SignatureStream(given, secrets, hmacStart) : undefined;
}
