import { andThen, isPromise, type MaybePromise } from '../../shared/maybe-promise.js';
import { readHeader } from '../../shared/read-header.js';
import type { BodyCheck, RequestHead, Source, SourceRead, Verdict } from '../source.js';
import { object } from '../shared/charge-event.js';
import { base64Bytes, joined, pemOf, rsaKey, type RsaKey } from '../shared/crypto.js';
import { factKey } from '../shared/fact-key.js';
import { configFail } from '../shared/options.js';
import { readWoovi } from './read.js';
import { isPresent } from '../shared/present.js';

export interface WooviOptions {
  psp: 'woovi';
  /**
   * Woovi's public keys (PEM, or base64 of PEM as Woovi publishes them at `GET /api/v1/webhook/public-keys`):
   * parsed once here, each tried in turn, so a rotation is adding the new key before Woovi switches.
   */
  publicKeys: readonly string[];
}

const header = 'x-webhook-signature';

const matched: Verdict = { ok: true };

/** One delivery's check: the body's chunks kept (no copy for one chunk), verified once at its end. */
class WooviCheck implements BodyCheck {
  private readonly chunks: Uint8Array[] = [];
  constructor(
    private readonly text: string,
    private readonly verify: (body: Uint8Array, signature: Uint8Array) => MaybePromise<Verdict>,
  ) {}
  update(chunk: Uint8Array): void {
    this.chunks.push(chunk);
  }
  end(): MaybePromise<Verdict> {
    const signature = base64Bytes(this.text);
    if (signature === undefined) return { ok: false, reason: 'signature_mismatch', hint: `${header} is not base64` };
    return this.verify(joined(this.chunks), signature);
  }
}

/** Woovi / OpenPix: `x-webhook-signature` (RSA-SHA256, base64) over the raw body, against a set of public keys. */
export function wooviSource(options: WooviOptions): Source {
  const given = options.publicKeys as unknown;
  if (!Array.isArray(given) || given.length === 0) configFail('publicKeys', 'is required: a non-empty list of PEM public keys.');
  const keys: RsaKey[] = (given as unknown[]).map((key, i) => {
    const pem = typeof key === 'string' ? pemOf(key) : undefined;
    if (pem === undefined) return configFail(`publicKeys[${String(i)}]`, `is not a PEM public key (nor base64 of one).`);
    try {
      return rsaKey(pem);
    } catch {
      return configFail(`publicKeys[${String(i)}]`, `is not an RSA public key.`);
    }
  });

  function authenticate(head: RequestHead): Verdict {
    const signature = readHeader(head.headers, header);
    return !isPresent(signature)
      ? { ok: false, reason: 'signature_missing', hint: `no ${header} header`, message: 'The x-webhook-signature header is missing.' }
      : matched;
  }

  // The key that verified last is tried first: after a rotation, every delivery is verified with one RSA
  // operation again (the retired key is not tried first on each).
  let last = 0;

  function bodyCheck(head: RequestHead): BodyCheck {
    return new WooviCheck(readHeader(head.headers, header)!.trim(), tryKeys);
  }

  function tryKeys(body: Uint8Array, signature: Uint8Array): MaybePromise<Verdict> {
    return tryFrom(body, signature, last, 0);
  }

  /** Keys `start + tried …` in turn; `start` is fixed per delivery, so a concurrent success moving `last` skips none. */
  function tryFrom(body: Uint8Array, signature: Uint8Array, start: number, tried: number): MaybePromise<Verdict> {
    for (let n = tried; n < keys.length; n++) {
      const i = (start + n) % keys.length;
      const ok = keys[i]!.verify(body, signature);
      if (isPromise(ok))
        return andThen(ok, (valid) => {
          if (!valid) return tryFrom(body, signature, start, n + 1);
          last = i;
          return matched;
        });
      if (ok) {
        last = i;
        return matched;
      }
    }
    return { ok: false, reason: 'signature_mismatch', hint: `${header} matches none of ${String(keys.length)} public keys` };
  }

  function read(json: unknown): SourceRead {
    const body = object(json);
    return body === undefined ? { events: [], hints: [], failures: [{ path: '', message: 'expected a JSON object' }] } : readWoovi(body);
  }

  return {
    provider: 'woovi',
    needs: { url: false },
    secrets: { headers: [], params: [] },
    authenticate,
    bodyCheck,
    read,
    key: factKey,
  };
}
