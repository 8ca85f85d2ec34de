import type { PixEvent } from '../../src/events/event-types.js';
import type { ReceiverOptions } from '../../src/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import type { ContractRequest } from './contract-target.js';
import {
  shortPaid,
  unicodeName,
  unicodePaid,
  unknownEvent,
  variantAPaid,
  variantATransferCompleted,
  variantBPaid,
  variantBTransferCompleted,
} from './fixtures.js';

export const secret = 'whsec_contract_9f8e7d6c5b4a';
export const rotatedSecret = 'whsec_contract_new_0a1b2c3d';

export interface Expectation {
  status: number;
  /** The reason code in the body (`error` for failures, `reason` on a 200 that has one). */
  reason?: string;
  /** Response headers that must be present (lower-case names). */
  headers?: Record<string, string | RegExp>;
}

export type Step =
  | { send: ContractRequest; expect: Expectation }
  /** Several deliveries at once; the multiset of statuses/reasons must match. */
  | { concurrently: ContractRequest[]; expectAll: Expectation[] }
  /** Waits for work the receiver still runs after answering (deadline passed, background mode). */
  | { drain: true }
  /** Lets a slow handler finish. */
  | { release: true };

export interface ContractCase {
  name: string;
  options?: Partial<ReceiverOptions>;
  /** How the typed handler behaves; default: succeeds at once. */
  handler?: 'ok' | 'fail-once' | 'always-fail' | 'blocked';
  steps: Step[];
  /** Events the typed handlers completed successfully (each run counted). */
  handled: number;
  /** Optional check of what the handler saw. */
  check?: (events: PixEvent[]) => void;
}

const json = 'application/json';

export function signed(body: Uint8Array | string, withSecret = secret, extra: Record<string, string> = {}): ContractRequest {
  const bytes = typeof body === 'string' ? bytesOf(body) : body;
  return { method: 'POST', headers: { 'content-type': json, 'x-signature': signBytes(bytes, withSecret), ...extra }, body: bytes };
}

function withSignature(body: Uint8Array, signature: string): ContractRequest {
  return { method: 'POST', headers: { 'content-type': json, 'x-signature': signature }, body };
}

const ok: Expectation = { status: 200 };
const aBytes = bytesOf(variantAPaid);
const validSig = signBytes(aBytes, secret);
const hex = validSig.slice('sha256='.length);

function tampered(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(bytes);
  const at = copy.indexOf('5'.charCodeAt(0)); // a digit of the amount: 15990 → 16990
  copy[at] = '6'.charCodeAt(0);
  return copy;
}

function withAmount(amount: unknown) {
  return JSON.stringify({ ...variantBPaid, transaction: { ...variantBPaid.transaction, amount } });
}

export const contractCases: ContractCase[] = [
  { name: 'Variant A transaction_paid is handled', steps: [{ send: signed(aBytes), expect: ok }], handled: 1 },
  {
    name: 'Variant B transaction_paid is handled with payer and endToEndId',
    steps: [{ send: signed(JSON.stringify(variantBPaid)), expect: ok }],
    handled: 1,
    check: ([event]) => {
      if (event?.kind !== 'transaction') throw new Error('expected a transaction event');
      if (event.transaction.amountInCents !== 2500 || event.transaction.payer?.name !== 'João Pereira') {
        throw new Error(`unexpected transaction ${JSON.stringify(event.transaction)}`);
      }
    },
  },
  { name: 'the short B form is handled', steps: [{ send: signed(JSON.stringify(shortPaid)), expect: ok }], handled: 1 },
  {
    name: 'transfer events in A and B are handled',
    steps: [
      { send: signed(JSON.stringify(variantATransferCompleted)), expect: ok },
      { send: signed(JSON.stringify(variantBTransferCompleted)), expect: ok },
    ],
    handled: 2,
  },
  {
    name: 'a verified duplicate of a completed event answers 200 duplicate and is not handled again',
    steps: [
      { send: signed(aBytes), expect: ok },
      { send: signed(aBytes), expect: { status: 200, reason: 'duplicate' } },
    ],
    handled: 1,
  },
  {
    name: 'the same event through postback and user scopes is handled once',
    steps: [
      { send: signed(JSON.stringify(variantBPaid)), expect: ok },
      { send: signed(JSON.stringify({ ...variantBPaid, scope: 'user' })), expect: { status: 200, reason: 'duplicate' } },
    ],
    handled: 1,
  },
  {
    name: 'a verified unknown event name answers 200 unknown_event and reaches no typed handler',
    steps: [{ send: signed(JSON.stringify(unknownEvent)), expect: { status: 200, reason: 'unknown_event' } }],
    handled: 0,
  },
  {
    name: 'a missing signature answers 401 signature_missing',
    steps: [
      { send: { method: 'POST', headers: { 'content-type': json }, body: aBytes }, expect: { status: 401, reason: 'signature_missing' } },
    ],
    handled: 0,
  },
  {
    name: 'an empty signature header answers 401 signature_missing',
    steps: [{ send: withSignature(aBytes, ''), expect: { status: 401, reason: 'signature_missing' } }],
    handled: 0,
  },
  {
    name: 'a signature without the sha256= prefix answers 401 signature_malformed',
    steps: [{ send: withSignature(aBytes, hex), expect: { status: 401, reason: 'signature_malformed' } }],
    handled: 0,
  },
  {
    name: 'a truncated signature answers 401 signature_malformed',
    steps: [{ send: withSignature(aBytes, validSig.slice(0, -2)), expect: { status: 401, reason: 'signature_malformed' } }],
    handled: 0,
  },
  {
    name: 'an odd-length signature answers 401 signature_malformed',
    steps: [{ send: withSignature(aBytes, `${validSig}a`), expect: { status: 401, reason: 'signature_malformed' } }],
    handled: 0,
  },
  {
    name: 'a non-hex signature answers 401 signature_malformed',
    steps: [{ send: withSignature(aBytes, `sha256=${'zz'.repeat(32)}`), expect: { status: 401, reason: 'signature_malformed' } }],
    handled: 0,
  },
  {
    name: 'another scheme (sha1=) answers 401 signature_malformed',
    steps: [{ send: withSignature(aBytes, `sha1=${hex}`), expect: { status: 401, reason: 'signature_malformed' } }],
    handled: 0,
  },
  {
    name: 'a tampered byte answers 401 signature_mismatch',
    steps: [{ send: withSignature(tampered(aBytes), validSig), expect: { status: 401, reason: 'signature_mismatch' } }],
    handled: 0,
  },
  {
    name: 'a flipped signature digit answers 401 signature_mismatch',
    steps: [
      {
        send: withSignature(aBytes, `sha256=${hex.slice(0, 10)}${hex[10] === '0' ? '1' : '0'}${hex.slice(11)}`),
        expect: { status: 401, reason: 'signature_mismatch' },
      },
    ],
    handled: 0,
  },
  {
    name: 'the wrong secret answers 401 signature_mismatch',
    steps: [{ send: signed(aBytes, 'whsec_wrong'), expect: { status: 401, reason: 'signature_mismatch' } }],
    handled: 0,
  },
  {
    name: 'the second of two secrets verifies (key rotation)',
    options: { secret: [secret, rotatedSecret] },
    steps: [{ send: signed(aBytes, rotatedSecret), expect: ok }],
    handled: 1,
  },
  {
    name: 'an uppercase hex signature verifies (compared as bytes)',
    steps: [{ send: withSignature(aBytes, `sha256=${hex.toUpperCase()}`), expect: ok }],
    handled: 1,
  },
  {
    name: 'an empty signed body answers 400 json_invalid',
    steps: [{ send: signed(new Uint8Array(0)), expect: { status: 400, reason: 'json_invalid' } }],
    handled: 0,
  },
  {
    name: 'a signed body that is not JSON answers 400 json_invalid',
    steps: [{ send: signed('event=transaction_paid&id=1'), expect: { status: 400, reason: 'json_invalid' } }],
    handled: 0,
  },
  {
    name: 'signed invalid UTF-8 answers 400 json_invalid',
    steps: [{ send: signed(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])), expect: { status: 400, reason: 'json_invalid' } }],
    handled: 0,
  },
  {
    name: 'a pretty-printed body verifies over its exact bytes',
    steps: [{ send: signed(JSON.stringify(variantAPaid, null, 2)), expect: ok }],
    handled: 1,
  },
  {
    name: 'a unicode body verifies over its exact bytes and reaches the handler intact',
    steps: [{ send: signed(JSON.stringify(unicodePaid)), expect: ok }],
    handled: 1,
    check: ([event]) => {
      if (event?.kind !== 'transaction' || event.transaction.customer?.name !== unicodeName) {
        throw new Error(`customer name not intact: ${JSON.stringify(event)}`);
      }
    },
  },
  {
    name: 'content type with charset=utf-8 is accepted',
    steps: [{ send: signed(aBytes, secret, { 'content-type': 'application/json; charset=utf-8' }), expect: ok }],
    handled: 1,
  },
  {
    name: 'a 3 MiB body answers 413 body_too_large',
    steps: [{ send: signed(new Uint8Array(3 * 1024 * 1024).fill(0x20)), expect: { status: 413, reason: 'body_too_large' } }],
    handled: 0,
  },
  {
    name: 'a body over a custom maxBodyBytes answers 413 body_too_large',
    options: { maxBodyBytes: 100 },
    steps: [{ send: signed(aBytes), expect: { status: 413, reason: 'body_too_large' } }],
    handled: 0,
  },
  ...(['null', '[]', '[{"event":"transaction_paid"}]', '42', '"transaction_paid"'] as const).map((body): ContractCase => ({
    name: `signed JSON ${body} answers 400 payload_invalid`,
    steps: [{ send: signed(body), expect: { status: 400, reason: 'payload_invalid' } }],
    handled: 0,
  })),
  ...(
    [
      ['a string amount', '"2500"'],
      ['a fractional amount', 25.5],
      ['a negative amount', -2500],
      ['an unsafe integer amount', 2 ** 53],
      ['a missing amount', undefined],
    ] as const
  ).map(([what, amount]): ContractCase => ({
    name: `${what} answers 400 payload_invalid`,
    steps: [
      {
        send: signed(typeof amount === 'string' ? withAmount('X').replace('"X"', amount) : withAmount(amount)),
        expect: { status: 400, reason: 'payload_invalid' },
      },
    ],
    handled: 0,
  })),
  {
    name: 'a known event without its resource answers 400 payload_invalid',
    steps: [{ send: signed(JSON.stringify({ event: 'transaction_paid', id: 'x' })), expect: { status: 400, reason: 'payload_invalid' } }],
    handled: 0,
  },
  {
    name: 'GET answers 405 method_not_allowed with Allow: POST',
    steps: [{ send: { method: 'GET', headers: {} }, expect: { status: 405, reason: 'method_not_allowed', headers: { allow: 'POST' } } }],
    handled: 0,
  },
  {
    name: 'PUT answers 405 method_not_allowed',
    steps: [{ send: { ...signed(aBytes), method: 'PUT' }, expect: { status: 405, reason: 'method_not_allowed' } }],
    handled: 0,
  },
  {
    name: 'a failing handler answers 500 handler_failed, and the retry runs it again',
    handler: 'fail-once',
    steps: [
      { send: signed(aBytes), expect: { status: 500, reason: 'handler_failed' } },
      { send: signed(aBytes), expect: ok },
      { send: signed(aBytes), expect: { status: 200, reason: 'duplicate' } },
    ],
    handled: 1,
  },
  {
    name: 'a handler past the deadline answers 503 handler_timeout; a duplicate in flight 503 in_flight; then duplicate',
    options: { deadlineMs: 50 },
    handler: 'blocked',
    steps: [
      { send: signed(aBytes), expect: { status: 503, reason: 'handler_timeout', headers: { 'retry-after': /^\d+$/ } } },
      { send: signed(aBytes), expect: { status: 503, reason: 'in_flight', headers: { 'retry-after': /^\d+$/ } } },
      { release: true },
      { drain: true },
      { send: signed(aBytes), expect: { status: 200, reason: 'duplicate' } },
    ],
    handled: 1,
  },
  {
    name: 'a handler that fails after the deadline releases the claim, so the retry runs it',
    options: { deadlineMs: 50 },
    handler: 'always-fail',
    steps: [
      { send: signed(aBytes), expect: { status: 500, reason: 'handler_failed' } },
      { send: signed(aBytes), expect: { status: 500, reason: 'handler_failed' } },
    ],
    handled: 0,
  },
  {
    name: 'five simultaneous identical deliveries run the handler once',
    steps: [
      {
        concurrently: Array.from({ length: 5 }, () => signed(aBytes)),
        // The first is handled; each other one either sees it in flight (503) or done (200 duplicate).
        expectAll: [ok],
      },
      { drain: true },
      { send: signed(aBytes), expect: { status: 200, reason: 'duplicate' } },
    ],
    handled: 1,
  },
  {
    name: 'background mode answers 200 before the handler runs, and the handler still runs once',
    options: { mode: 'background' },
    handler: 'blocked',
    steps: [
      { send: signed(aBytes), expect: ok },
      { send: signed(aBytes), expect: { status: 503, reason: 'in_flight' } },
      { release: true },
      { drain: true },
      { send: signed(aBytes), expect: { status: 200, reason: 'duplicate' } },
    ],
    handled: 1,
  },
];
