import type { JsonObject } from '../../events/event-types.js';
import { andThen, isPromise, type MaybePromise } from '../../shared/maybe-promise.js';
import { readHeader } from '../../shared/read-header.js';
import type { BodyCheck, RequestHead, Source, SourceRead, Verdict } from '../source.js';
import { object } from '../shared/charge-event.js';
import { base64Bytes, joined, pemOf, rsaKey, type RsaKey } from '../shared/crypto.js';
import { factKey } from '../shared/fact-key.js';
import { configFail } from '../shared/options.js';
import { readWoovi } from './read.js';
import { sourceReaders } from '../readers.js';

export interface WooviOptions {
  psp: 'woovi';
  /**
   * Woovi's public keys (PEM, or base64 of PEM as Woovi publishes them at `GET /api/v1/webhook/public-keys`):
   * parsed once here, each tried in turn, so a rotation is adding the new key before Woovi switches.
   */
  publicKeys: readonly string[];
}

const header = 'x-webhook-signature';

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
    return signature === undefined || signature === ''
      ? { ok: false, reason: 'signature_missing', hint: `no ${header} header`, message: 'The x-webhook-signature header is missing.' }
      : { ok: true };
  }

  function bodyCheck(head: RequestHead): BodyCheck {
    const text = readHeader(head.headers, header)!.trim();
    const chunks: Uint8Array[] = [];
    return {
      update: (chunk) => void chunks.push(chunk),
      end: () => {
        const signature = base64Bytes(text);
        if (signature === undefined) return { ok: false, reason: 'signature_mismatch', hint: `${header} is not base64` };
        return tryKeys(joined(chunks), signature, 0);
      },
    };
  }

  function tryKeys(body: Uint8Array, signature: Uint8Array, from: number): MaybePromise<Verdict> {
    for (let i = from; i < keys.length; i++) {
      const ok = keys[i]!.verify(body, signature);
      if (isPromise(ok)) return andThen(ok, (valid) => (valid ? { ok: true as const } : tryKeys(body, signature, i + 1)));
      if (ok) return { ok: true };
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
    reread: (payload: JsonObject) => sourceReaders['woovi'].reread(payload, 'replay'),
  };
}
