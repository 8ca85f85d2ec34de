import { eventKey } from '../../events/event-key.js';
import { andThen, type MaybePromise } from '../../shared/maybe-promise.js';
import { readHeader, type HeaderSource } from '../../shared/read-header.js';
import { hmacStart } from '../../signature/hmac-sha256.js';
import { HmacStream, startSignatureStream } from '../../signature/signature-stream.js';
import { givenDigest, type SignatureResult, type VerifySignatureInput } from '../../signature/verify-signature.js';
import type { BodyCheck, RequestHead, Source, Verdict } from '../source.js';
import { readGateway } from './read.js';

/** The gateway's signing, as `createReceiver` resolved it (`resolveIntakeOptions`): secrets, header, scheme, verifier. */
interface GatewaySourceOptions {
  readonly secrets: readonly string[];
  /** Lower case; `x-signature` unless the `signature` option names another. */
  readonly signatureHeader: string;
  /** `sha256` (default): `sha256=<hex>` over the body alone, hashed as it arrives where node:crypto exists. */
  readonly scheme?: 'sha256' | 'timestamped';
  /** `sha256=` HMAC over the raw bytes (or the timestamped scheme), node:crypto or Web Crypto. */
  readonly verify: (input: VerifySignatureInput) => MaybePromise<SignatureResult>;
}

const ok: Verdict = { ok: true };

/**
 * The gateway of `pix-service-interface.md` as a source: `X-Signature: sha256=<hex>`, HMAC-SHA256 of the exact
 * bytes against one secret or several (a missing header is judged with the body, as the gateway's receiver
 * always has: its size first); Variant A, B, the short form and transfers read into the one union
 * (`normalizeEvent`), one event a delivery, an unknown name handed to `onUnknown`; the standard dedupe key
 * (`eventKey`). Its test-kit signer is `pixhook/testing`'s `sign`/`signedRequest` (`src/signature/sign-body.ts`),
 * its emulator profile `startEmulator({ profile: 'gateway' })`. `createReceiver` is this source on `receiverOver`.
 */
export function gatewaySource(options: GatewaySourceOptions): Source {
  const { secrets, signatureHeader, verify } = options;
  const streams = (options.scheme ?? 'sha256') === 'sha256' && hmacStart !== undefined;

  /**
   * `sha256=` on node:crypto: the HMAC of every secret updated chunk by chunk, compared at the end (the same
   * verdict `verifySignature` gives over the whole body). A missing or malformed header is its verdict at once,
   * the bytes ignored. Otherwise (Web Crypto, the timestamped scheme) the whole body is verified at the end.
   */
  function bodyCheck(head: RequestHead): BodyCheck {
    const signature = readHeader(head.headers, signatureHeader);
    if (streams) {
      const given = givenDigest(signature);
      return given instanceof Uint8Array ? new HmacCheck(given, secrets, hmacStart!) : judged(given);
    }
    const chunks: Uint8Array[] = [];
    return {
      update: (chunk) => void chunks.push(chunk),
      end: () => andThen(verify({ body: joined(chunks), signature, secret: secrets }), verdictOf),
    };
  }

  /** Only a well-formed `sha256=` header is worth hashing as the bytes arrive; `bodyCheck` answers every other. */
  const streamCheck = (headers: HeaderSource): BodyCheck | undefined => startSignatureStream(readHeader(headers, signatureHeader), secrets);

  return {
    provider: 'gateway',
    needs: { url: false },
    secrets: { headers: [signatureHeader], params: [] },
    single: { signatureHeader },
    authenticate: () => ok,
    bodyCheck,
    // Not for the timestamped scheme (it signs more than the body) nor on Web Crypto (it hashes a whole body).
    streamCheck: streams && streamCheck,
    read: (json) => readGateway(json, 'webhook'),
    key: eventKey,
  };
}

/** A failing verifier's result is a verdict as it is (reason, public message, private hint). */
function verdictOf(result: SignatureResult): Verdict {
  return result.ok ? ok : result;
}

/** The HMAC hashed as the bytes arrive, as a body check: no object made for a match. */
class HmacCheck extends HmacStream implements BodyCheck {
  end(): Verdict {
    return this.matched() >= 0 ? ok : this.mismatch();
  }
}

/** A check already decided by the header alone: the bytes do not matter. */
function judged(result: SignatureResult): BodyCheck {
  const verdict = verdictOf(result);
  return { update: () => {}, end: () => verdict };
}

function joined(chunks: readonly Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const all = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return all;
}
