// The API Pix profile's adapter contract, shared by every auth mode: the gateway contract's cases translated
// to the standard (HTTP answers, failures, deadlines, concurrency, background mode) plus its own bodies,
// amounts and batches. The mode's auth cases are in api-pix-auth-cases.ts.
import { apiPixBody, apiPixPix, apiPixRefund, seededRandom, type ApiPixPix } from '../../src/testing/index.js';
import { expectEvent, post, type ApiPixCase, type Expectation } from './api-pix-case.js';
import { cobRWebhookNotification1, pixWebhook1, pixWebhook2, recWebhookNotification1 } from './fixtures.js';

const random = seededRandom(2029);
const pix = (options: Parameters<typeof apiPixPix>[0] = {}): ApiPixPix =>
  apiPixPix({ random, paidAt: '2026-11-27T05:00:00.000Z', ...options });
const one = pix({ amountInCents: 11000, key: 'loja@example.com', payerInfo: 'pedido 42' });
const [a, b, c] = [pix(), pix(), pix()];
const unicodeInfo = 'José Ñandú — 支払い 💸';
const ok: Expectation = { status: 200 };
const duplicate: Expectation = { status: 200, reason: 'duplicate' };
const wrapped = (...items: unknown[]) => JSON.stringify({ pix: items });

/** A call with a readable Pix and one whose `valor` is not the standard's `\d{1,10}\.\d{2}`. */
const unreadableAmount = (what: string, valor: unknown): ApiPixCase => ({
  name: `an amount ${what} is unreadable: that item is kept and reported, the other handled, 200`,
  steps: [{ send: post(wrapped(a, { ...b, valor })), expect: ok }],
  handled: 1,
  invalid: 1,
  check: ([event]) => expectEvent(event?.name === 'pix_received' && event.pix.endToEndId === a.endToEndId, 'only the readable item', event),
});

const payloadInvalid = (body: string): ApiPixCase => ({
  name: `${body} is no API Pix shape: 400 payload_invalid, kept`,
  steps: [{ send: post(body), expect: { status: 400, reason: 'payload_invalid' } }],
  handled: 0,
  invalid: 1,
});

export const sharedCases: ApiPixCase[] = [
  // ── Bodies as PSPs send them
  {
    name: '{ pix: [...] } on /pix is handled, typed, the amount in exact cents',
    steps: [{ send: post(apiPixBody([one])), expect: ok }],
    handled: 1,
    check: ([event]) =>
      expectEvent(
        event?.name === 'pix_received' &&
          event.pix.endToEndId === one.endToEndId &&
          event.pix.txid === one.txid &&
          event.pix.amountInCents === 11000 &&
          event.pix.key === 'loja@example.com' &&
          event.pix.payerInfo === 'pedido 42',
        'pix_received as sent',
        event,
      ),
  },
  { name: 'a bare array on /pix is handled', steps: [{ send: post(apiPixBody([one], { shape: 'bare' })), expect: ok }], handled: 1 },
  {
    name: 'a bare array on /pix/ (trailing slash) is handled',
    steps: [{ send: post(apiPixBody([a], { shape: 'bare' }), '/pix/'), expect: ok }],
    handled: 1,
  },
  { name: '{ pix } on the bare mount path (no suffix) is handled', steps: [{ send: post(apiPixBody([a]), ''), expect: ok }], handled: 1 },
  {
    name: "the spec's recWebhookNotification1 on /rec is a recurrence_updated",
    steps: [{ send: post(JSON.stringify(recWebhookNotification1), '/rec'), expect: ok }],
    handled: 1,
    check: ([event]) =>
      expectEvent(
        event?.name === 'recurrence_updated' &&
          event.recurrence.id === 'RR1026652320240821lab77511abf' &&
          event.recurrence.status === 'APROVADA',
        'the recurrence',
        event,
      ),
  },
  {
    name: 'a bare array on /rec/ is read as recurrences',
    steps: [{ send: post(JSON.stringify(recWebhookNotification1.recs), '/rec/'), expect: ok }],
    handled: 1,
    check: ([event]) => expectEvent(event?.name === 'recurrence_updated', 'a recurrence', event),
  },
  {
    name: "the spec's cobRWebhookNotification1 on /cobr is a recurring_charge_updated",
    steps: [{ send: post(JSON.stringify(cobRWebhookNotification1), '/cobr'), expect: ok }],
    handled: 1,
    check: ([event]) =>
      expectEvent(
        event?.name === 'recurring_charge_updated' &&
          event.recurringCharge.txid === '3136957d93134f2184b369e8f1c0729d' &&
          event.recurringCharge.status === 'ATIVA',
        'the recurring charge',
        event,
      ),
  },
  {
    name: 'a bare array on /cobr/ is read as recurring charges',
    steps: [{ send: post(JSON.stringify(cobRWebhookNotification1.cobsr), '/cobr/'), expect: ok }],
    handled: 1,
    check: ([event]) => expectEvent(event?.name === 'recurring_charge_updated', 'a recurring charge', event),
  },
  {
    name: "the spec's pixWebhook1 (devolucoes as one object): the Pix and its refund in processing",
    steps: [{ send: post(JSON.stringify(pixWebhook1)), expect: ok }],
    handled: 2,
    check: (events) => {
      const [received, refund] = events;
      expectEvent(received?.name === 'pix_received' && received.pix.amountInCents === 11000, 'the Pix, 110.00', received);
      expectEvent(
        refund?.name === 'pix_refund_updated' &&
          refund.refund.id === '123ABC' &&
          refund.refund.status === 'processing' &&
          refund.refund.amountInCents === 1000 &&
          refund.refund.endToEndId === pixWebhook1.endToEndId,
        'the refund, 10.00, processing',
        refund,
      );
    },
  },
  {
    name: "the spec's pixWebhook2 (one Pix as the whole body) is handled: 110.00 → 11000",
    steps: [{ send: post(JSON.stringify(pixWebhook2)), expect: ok }],
    handled: 1,
    check: ([event]) => expectEvent(event?.name === 'pix_received' && event.pix.amountInCents === 11000, '11000 cents', event),
  },
  {
    name: 'devolucoes as an array: one event per refund status (returned, not_returned)',
    steps: [
      {
        send: post(
          apiPixBody([
            pix({
              devolucoes: [
                apiPixRefund({ random, id: 'r1', amountInCents: 300 }),
                apiPixRefund({ random, id: 'r2', status: 'NAO_REALIZADO', reason: 'saldo' }),
              ],
            }),
          ]),
        ),
        expect: ok,
      },
    ],
    handled: 3,
    check: (events) => {
      const statuses = events.flatMap((event) =>
        event.name === 'pix_refund_updated' ? [`${event.refund.id}:${event.refund.status}`] : [],
      );
      expectEvent(statuses.join() === 'r1:returned,r2:not_returned', 'both refunds', statuses);
    },
  },
  {
    name: 'the same Pix as { pix } and then as a bare array is one fact: duplicate',
    steps: [
      { send: post(apiPixBody([a])), expect: ok },
      { send: post(apiPixBody([a], { shape: 'bare' })), expect: duplicate },
    ],
    handled: 1,
  },
  {
    name: 'a refund at a new status is a new event; the same status again is not',
    steps: [
      { send: post(apiPixBody([{ ...a, devolucoes: [apiPixRefund({ random, id: 'd1', status: 'EM_PROCESSAMENTO' })] }])), expect: ok },
      { send: post(apiPixBody([{ ...a, devolucoes: [apiPixRefund({ random, id: 'd1', status: 'DEVOLVIDO' })] }])), expect: ok },
      { send: post(apiPixBody([{ ...a, devolucoes: [apiPixRefund({ random, id: 'd1', status: 'DEVOLVIDO' })] }])), expect: ok },
    ],
    handled: 3,
  },
  // ── Amounts
  {
    name: '"0.01" is 1 cent',
    steps: [{ send: post(apiPixBody([{ ...a, valor: '0.01' }])), expect: ok }],
    handled: 1,
    check: ([event]) => expectEvent(event?.name === 'pix_received' && event.pix.amountInCents === 1, '1 cent', event),
  },
  unreadableAmount('"1.5"', '1.5'),
  unreadableAmount('"1,50"', '1,50'),
  unreadableAmount('"-1.00"', '-1.00'),
  unreadableAmount('"1e3"', '1e3'),
  unreadableAmount('as a JSON number', 110),
  unreadableAmount('of 11 integer digits', '12345678901.00'),
  // ── Batches, exactly once per item
  {
    name: 'three items are three events',
    steps: [{ send: post(apiPixBody([a, b, c])), expect: ok }],
    handled: 3,
    check: (events) =>
      expectEvent(new Set(events.map((e) => (e.name === 'pix_received' ? e.pix.endToEndId : ''))).size === 3, 'three Pix', events),
  },
  { name: 'a duplicate inside one batch runs once', steps: [{ send: post(apiPixBody([a, a])), expect: ok }], handled: 1, runs: 1 },
  {
    name: 'a batch holding an item already done runs only the others',
    steps: [
      { send: post(apiPixBody([b])), expect: ok },
      { send: post(apiPixBody([a, b, c])), expect: ok },
    ],
    handled: 3,
    runs: 3,
  },
  {
    name: 'an item failing in a batch answers 500; the retried batch re-runs only that item',
    handler: { failOnceFor: b.endToEndId },
    steps: [
      { send: post(apiPixBody([a, b, c])), expect: { status: 500, reason: 'handler_failed' } },
      { send: post(apiPixBody([a, b, c])), expect: ok },
      { send: post(apiPixBody([a, b, c])), expect: ok },
    ],
    handled: 3,
    runs: 4,
  },
  {
    name: 'a 50-item batch runs 50 events',
    steps: [{ send: post(apiPixBody(Array.from({ length: 50 }, () => pix()))), expect: ok }],
    handled: 50,
  },
  {
    name: 'an unreadable item (no endToEndId) is kept and reported; the others are handled; 200',
    steps: [{ send: post(wrapped(a, { valor: '1.00', horario: '2026-11-27T05:00:00Z' }, c)), expect: ok }],
    handled: 2,
    invalid: 1,
  },
  {
    name: 'a call whose every item is unreadable is kept once, with its bytes, and answered 200 (a resend cannot mend it)',
    steps: [{ send: post(wrapped({ ...a, valor: '1.5' }, { ...b, endToEndId: 'E-1' })), expect: ok }],
    handled: 0,
    invalid: 1,
  },
  {
    name: 'a Pix to a key not in `keys` is never dispatched: kept and reported',
    options: { keys: ['loja@example.com'] },
    steps: [{ send: post(apiPixBody([one, { ...a, chave: 'outra@example.com' }])), expect: ok }],
    handled: 1,
    invalid: 1,
    check: ([event]) => expectEvent(event?.name === 'pix_received' && event.pix.key === 'loja@example.com', 'only our key', event),
  },
  // ── HTTP answers
  {
    name: 'GET answers 405 method_not_allowed with Allow: POST',
    steps: [
      {
        send: { method: 'GET', headers: {}, path: '/pix' },
        expect: { status: 405, reason: 'method_not_allowed', headers: { allow: 'POST' } },
      },
    ],
    handled: 0,
  },
  {
    name: 'PUT answers 405 method_not_allowed',
    steps: [{ send: { ...post(apiPixBody([a])), method: 'PUT' }, expect: { status: 405, reason: 'method_not_allowed' } }],
    handled: 0,
  },
  {
    name: 'a body over a custom maxBodyBytes answers 413 body_too_large',
    options: { maxBodyBytes: 64 },
    steps: [{ send: post(apiPixBody([a, b, c])), expect: { status: 413, reason: 'body_too_large' } }],
    handled: 0,
  },
  {
    name: 'a 2 MiB body answers 413 body_too_large (default 1 MiB)',
    steps: [{ send: post(new Uint8Array(2 * 1024 * 1024).fill(0x20)), expect: { status: 413, reason: 'body_too_large' } }],
    handled: 0,
  },
  {
    name: 'a body that is not JSON answers 400 json_invalid, kept',
    steps: [{ send: post('{"pix":['), expect: { status: 400, reason: 'json_invalid' } }],
    handled: 0,
    invalid: 1,
  },
  {
    name: 'an empty body answers 400 json_invalid',
    steps: [{ send: post(''), expect: { status: 400, reason: 'json_invalid' } }],
    handled: 0,
    invalid: 1,
  },
  {
    name: 'invalid UTF-8 answers 400 json_invalid',
    steps: [{ send: post(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])), expect: { status: 400, reason: 'json_invalid' } }],
    handled: 0,
    invalid: 1,
  },
  payloadInvalid('{"a":1}'),
  payloadInvalid('null'),
  payloadInvalid('42'),
  payloadInvalid('{"pix":5}'),
  {
    name: 'content type with charset=utf-8 is accepted',
    steps: [{ send: post(apiPixBody([a]), '/pix', { 'content-type': 'application/json; charset=utf-8' }), expect: ok }],
    handled: 1,
  },
  {
    name: 'a unicode infoPagador reaches the handler intact',
    steps: [{ send: post(apiPixBody([{ ...a, infoPagador: unicodeInfo }])), expect: ok }],
    handled: 1,
    check: ([event]) => expectEvent(event?.name === 'pix_received' && event.pix.payerInfo === unicodeInfo, 'infoPagador intact', event),
  },
  { name: 'a pretty-printed body is handled', steps: [{ send: post(JSON.stringify({ pix: [a] }, null, 2)), expect: ok }], handled: 1 },
  // ── Processing
  {
    name: 'a failing handler answers 500 handler_failed; the retry runs it; then duplicate',
    handler: 'fail-once',
    steps: [
      { send: post(apiPixBody([a])), expect: { status: 500, reason: 'handler_failed' } },
      { send: post(apiPixBody([a])), expect: ok },
      { send: post(apiPixBody([a])), expect: duplicate },
    ],
    handled: 1,
    runs: 2,
  },
  {
    name: 'a handler past the deadline answers 503 handler_timeout; a duplicate in flight 503 in_flight; then duplicate',
    options: { deadlineMs: 50 },
    handler: 'blocked',
    steps: [
      { send: post(apiPixBody([a])), expect: { status: 503, reason: 'handler_timeout', headers: { 'retry-after': /^\d+$/ } } },
      { send: post(apiPixBody([a])), expect: { status: 503, reason: 'in_flight', headers: { 'retry-after': /^\d+$/ } } },
      { release: true },
      { drain: true },
      { send: post(apiPixBody([a])), expect: duplicate },
    ],
    handled: 1,
    runs: 1,
  },
  {
    name: 'a handler that fails after the deadline releases the claim, so the retry runs it',
    options: { deadlineMs: 50 },
    handler: 'always-fail',
    steps: [
      { send: post(apiPixBody([a])), expect: { status: 500, reason: 'handler_failed' } },
      { send: post(apiPixBody([a])), expect: { status: 500, reason: 'handler_failed' } },
    ],
    handled: 0,
    runs: 2,
  },
  {
    name: 'five simultaneous identical calls run the handler once',
    steps: [
      { concurrently: Array.from({ length: 5 }, () => post(apiPixBody([a]))), handledNow: 1 },
      { drain: true },
      { send: post(apiPixBody([a])), expect: duplicate },
    ],
    handled: 1,
    runs: 1,
  },
  {
    name: 'background mode answers 200 before the handler runs, and the handler still runs once',
    options: { mode: 'background' },
    handler: 'blocked',
    steps: [
      { send: post(apiPixBody([a])), expect: ok },
      { send: post(apiPixBody([a])), expect: { status: 503, reason: 'in_flight' } },
      { release: true },
      { drain: true },
      { send: post(apiPixBody([a])), expect: duplicate },
    ],
    handled: 1,
    runs: 1,
  },
];
