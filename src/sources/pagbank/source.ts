import { readHeader } from '../../shared/read-header.js';
import type { BodyCheck, RequestHead, Source, SourceRead, Verdict } from '../source.js';
import { object } from '../shared/charge-event.js';
import { sameBytes } from '../shared/constant-time.js';
import { hexBytes, type Digest } from '../shared/crypto.js';
import { factKey } from '../shared/fact-key.js';
import { requiredText } from '../shared/options.js';
import { andThen, type MaybePromise } from '../../shared/maybe-promise.js';
import { readOrder } from './read.js';
import { pagbankDigests } from './sign.js';
import { isPresent } from '../shared/present.js';

export interface PagBankOptions {
  psp: 'pagbank';
  /** The account's token: the seed of `x-authenticity-token`. */
  token: string;
}

const header = 'x-authenticity-token';

const mismatch: Verdict = { ok: false, reason: 'signature_mismatch', hint: `${header} does not match the body` };
const matched: Verdict = { ok: true };

/** One delivery's check: the body hashed as it arrives, its digest compared with the header's bytes. */
class PagBankCheck implements BodyCheck {
  constructor(
    private readonly given: Uint8Array | undefined,
    private readonly digest: Digest,
  ) {}
  update(chunk: Uint8Array): void {
    this.digest.update(chunk);
  }
  end(): MaybePromise<Verdict> {
    return andThen(this.digest.end(), judge, undefined, this.given);
  }
}

function judge(expected: Uint8Array, given: Uint8Array | undefined): Verdict {
  return given !== undefined && sameBytes(given, expected) ? matched : mismatch;
}

/** PagBank (PagSeguro) orders: `x-authenticity-token` checked over `token-<raw body>`, hashed as the body arrives. */
export function pagbankSource(options: PagBankOptions): Source {
  const token = requiredText('token', options.token);
  const digests = pagbankDigests(token);

  function authenticate(head: RequestHead): Verdict {
    const given = readHeader(head.headers, header);
    // The sandbox often leaves it out (developer.pagbank.com.br discuss threads): refused all the same.
    return !isPresent(given)
      ? { ok: false, reason: 'signature_missing', hint: `no ${header} header`, message: 'The x-authenticity-token header is missing.' }
      : matched;
  }

  function bodyCheck(head: RequestHead): BodyCheck {
    // The header's hex as the digest's 32 bytes (either case), compared as bytes: no hex string is made of the digest.
    return new PagBankCheck(hexBytes(readHeader(head.headers, header)!.trim(), 32), digests());
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
  };
}
