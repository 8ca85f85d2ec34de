import { eventKey } from '../../events/event-key.js';
import { andThen, type MaybePromise } from '../../shared/maybe-promise.js';
import { readHeader } from '../../shared/read-header.js';
import type { SignatureResult, VerifySignatureInput } from '../../signature/verify-signature.js';
import type { BodyCheck, RequestHead, Source, Verdict } from '../source.js';
import { readGateway } from './read.js';

/** The gateway's signing, as `createReceiver` resolved it (`resolveIntakeOptions`): secrets, header, verifier. */
interface GatewaySourceOptions {
  readonly secrets: readonly string[];
  /** Lower case; `x-signature` unless the `signature` option names another. */
  readonly signatureHeader: string;
  /** `sha256=` HMAC over the raw bytes (or the timestamped scheme), node:crypto or Web Crypto. */
  readonly verify: (input: VerifySignatureInput) => MaybePromise<SignatureResult>;
}

const ok: Verdict = { ok: true };

function verdictOf(result: SignatureResult): Verdict {
  if (result.ok) return ok;
  return { ok: false, reason: result.reason, hint: result.hint ?? result.message, message: result.message };
}

/**
 * The gateway of `pix-service-interface.md` as a source: `X-Signature: sha256=<hex>`, HMAC-SHA256 of the exact
 * bytes against one secret or several (a missing header is judged with the body, as the gateway's receiver
 * always has: its size first); Variant A, B, the short form and transfers read into the one union
 * (`normalizeEvent`); the standard dedupe key (`eventKey`). Its test-kit signer is `pixhook/testing`'s
 * `sign`/`signedRequest` (`src/signature/sign-body.ts`), its emulator profile `startEmulator({ profile: 'gateway' })`.
 * `createReceiver` runs the same steps in its own single-event pipeline (`src/intake/create-receiver.ts`), the hot path.
 */
export function gatewaySource(options: GatewaySourceOptions): Source {
  const { secrets, signatureHeader, verify } = options;

  function bodyCheck(head: RequestHead): BodyCheck {
    const chunks: Uint8Array[] = [];
    return {
      update: (chunk) => void chunks.push(chunk),
      end: () =>
        andThen(verify({ body: joined(chunks), signature: readHeader(head.headers, signatureHeader), secret: secrets }), verdictOf),
    };
  }

  return {
    provider: 'gateway',
    needs: { url: false },
    secrets: { headers: [signatureHeader], params: [] },
    authenticate: () => ok,
    bodyCheck,
    read: (json) => readGateway(json, 'webhook'),
    key: eventKey,
  };
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
