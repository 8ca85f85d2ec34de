import type { JsonObject } from '../../events/event-types.js';
import { readHeader } from '../../shared/read-header.js';
import type { BodyCheck, RequestHead, Source, SourceRead, Verdict } from '../source.js';
import { object } from '../shared/charge-event.js';
import { sameText } from '../shared/constant-time.js';
import { hexOf } from '../shared/crypto.js';
import { factKey } from '../shared/fact-key.js';
import { requiredText } from '../shared/options.js';
import { andThen } from '../../shared/maybe-promise.js';
import { readOrder } from './read.js';
import { pagbankDigest } from './sign.js';
import { sourceReaders } from '../readers.js';

export interface PagBankOptions {
  psp: 'pagbank';
  /** The account's token: the seed of `x-authenticity-token`. */
  token: string;
}

const header = 'x-authenticity-token';

/** PagBank (PagSeguro) orders: `x-authenticity-token` checked over `token-<raw body>`, hashed as the body arrives. */
export function pagbankSource(options: PagBankOptions): Source {
  const token = requiredText('token', options.token);

  function authenticate(head: RequestHead): Verdict {
    const given = readHeader(head.headers, header);
    // The sandbox often leaves it out (developer.pagbank.com.br discuss threads): refused all the same.
    return given === undefined || given === ''
      ? { ok: false, reason: 'signature_missing', hint: `no ${header} header`, message: 'The x-authenticity-token header is missing.' }
      : { ok: true };
  }

  function bodyCheck(head: RequestHead): BodyCheck {
    const given = readHeader(head.headers, header)!.trim().toLowerCase();
    const digest = pagbankDigest(token);
    return {
      update: (chunk) => digest.update(chunk),
      end: () =>
        andThen(hexOf(digest.end()), (expected): Verdict =>
          sameText(given, expected) ? { ok: true } : { ok: false, reason: 'signature_mismatch', hint: `${header} does not match the body` },
        ),
    };
  }

  function read(json: unknown): SourceRead {
    const order = object(json);
    if (order === undefined) return { events: [], hints: [], failures: [{ path: '', message: 'expected the order as a JSON object' }] };
    return { ...readOrder(order), hints: [] };
  }

  return {
    provider: 'pagbank',
    needs: { url: false },
    secrets: { headers: [header], params: [] },
    authenticate,
    bodyCheck,
    read,
    key: factKey,
    reread: (payload: JsonObject) => sourceReaders['pagbank'].reread(payload, 'replay'),
  };
}
