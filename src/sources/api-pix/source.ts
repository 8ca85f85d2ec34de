import { eventKey } from '../../events/event-key.js';
import type { PixEvent } from '../../events/event-types.js';
import type { ReadFailure, RequestHead, Source, SourceRead, Verdict } from '../source.js';
import { andThen } from '../../shared/maybe-promise.js';
import type { AuthRefusal, ResolvedAuth } from './auth-checks.js';
import { checkItemKey } from './key-check.js';
import { readBatch, readItem } from './read-batch.js';

interface ApiPixSourceOptions {
  /** The resolved `auth` option (`resolveAuth`): mTLS, the proxy's verdict, or a URL secret. */
  readonly auth: ResolvedAuth;
  /** The receiving keys (`resolveKeys`); absent: every key is the merchant's. */
  readonly keys?: ReadonlySet<string> | undefined;
  /** True with a payment book: a Pix to another key goes on marked for the book's `unknown_key` hold; false: it is kept, never dispatched. */
  readonly held: boolean;
  /** Told the key seen (or none) of a Pix to another key, with the request it came in. */
  readonly unknownKey?: (seen: string | undefined, head: RequestHead) => void;
}

const ok: Verdict = { ok: true };

function verdictOf(refused: AuthRefusal | undefined): Verdict {
  return refused === undefined ? ok : { ok: false, reason: refused.reason, hint: refused.hint };
}

/**
 * The Central Bank's standard API Pix (bacen/pix-api) as a source: who calls is judged on the connection or
 * the URL before the body (`auth`), a call is a batch (`{ "pix": [...] }`, `/rec`, `/cobr`, a bare array) read
 * item by item, each Pix's receiving key checked against `keys`. Its keys are the standard's (`eventKey`).
 */
export function apiPixSource(options: ApiPixSourceOptions): Source {
  const { auth, keys, held, unknownKey } = options;

  function read(json: unknown, head: RequestHead): SourceRead {
    const batch = readBatch(json, head.url);
    if (!batch.ok)
      return {
        events: [],
        hints: [],
        failures: [],
        invalid: { detail: batch.message, message: `The body is not a known API Pix shape: ${batch.message}` },
      };
    const events: PixEvent[] = [];
    const failures: ReadFailure[] = [];
    for (let i = 0; i < batch.items.length; i++) {
      const base = batch.base === '' ? String(i) : `${batch.base}.${String(i)}`;
      const item = readItem(batch.callback, batch.items[i], base);
      if (item.failures.length > 0) failures.push(...item.failures);
      const checked =
        keys === undefined ? item.events : checkItemKey(item.events, keys, held, base, failures, (seen) => unknownKey?.(seen, head));
      for (const event of checked) events.push(event);
    }
    return { events, hints: [], failures };
  }

  return {
    provider: 'api-pix',
    needs: { url: true, tls: auth.needsTls, address: auth.needsAddress },
    secrets: { headers: [], params: [] },
    batch: true,
    authenticate: (head) => andThen(auth.check(head), verdictOf),
    read,
    key: eventKey,
  };
}
