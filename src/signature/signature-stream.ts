import { digestsEqual, hmacStart, type HmacState } from './hmac-sha256.js';
import { fail, givenDigest, mismatchMessage, secretHint, type SignatureResult } from './verify-signature.js';

const matchedFirst: SignatureResult = Object.freeze({ ok: true, secretIndex: 0 });

/**
 * `X-Signature: sha256=…` hashed as the body arrives: the HMAC of every secret is updated with each chunk, and
 * `matched()` compares the digests in constant time. One secret, the common case, makes no array. Its verdicts:
 * `SignatureStream` (the whole-body verifier's answer) and the gateway source's body check.
 */
export class HmacStream {
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

  /** The index of the first secret whose HMAC over every byte fed matches, or -1; call once. */
  protected matched(): number {
    if (digestsEqual(this.first.digest(), this.given)) return 0;
    if (this.others !== undefined)
      for (let i = 0; i < this.others.length; i++) if (digestsEqual((this.others[i] as HmacState).digest(), this.given)) return i + 1;
    return -1;
  }

  /** The mismatch, with the whole-body verifier's message and hint. */
  protected mismatch(): SignatureResult & { ok: false } {
    return fail('signature_mismatch', mismatchMessage, secretHint(this.secrets)) as SignatureResult & { ok: false };
  }
}

/** The same answer `verifySignature` gives over the whole body, the matching secret's index included. */
class SignatureStream extends HmacStream {
  /** The verdict over every byte fed; call once. */
  end(): SignatureResult {
    const index = this.matched();
    if (index === 0) return matchedFirst;
    return index > 0 ? { ok: true, secretIndex: index } : this.mismatch();
  }
}

/**
 * A `SignatureStream` for this header and these (already checked) secrets, or undefined when the body
 * need not be hashed as it arrives: no node:crypto (Web Crypto hashes a whole body), or a header that
 * is missing or malformed, which the whole-body verifier answers with its own reason.
 */
export function startSignatureStream(
  signature: string | null | undefined,
  secrets: readonly string[],
): Pick<SignatureStream, 'update' | 'end'> | undefined {
  if (hmacStart === undefined || secrets.length === 0) return undefined;
  const given = givenDigest(signature);
  return given instanceof Uint8Array ? new SignatureStream(given, secrets, hmacStart) : undefined;
}
