import { describe, expect, it } from 'vitest';
import {
  createApiPixReceiver,
  type ApiPixReceiverOptions,
  type PixReceivedEvent,
  type PixRefundUpdatedEvent,
} from '../../src/api-pix/index.js';
import { memoryDedupeStore } from '../../src/dedupe/memory-dedupe-store.js';
import { memoryQuarantine } from '../../src/dedupe/memory-quarantine.js';
import { memoryJournal, memoryPaymentBook, PixhookConfigError, type PixEvent } from '../../src/index.js';
import { apiPixAmount, apiPixBody, apiPixPix, apiPixRefund, seededRandom } from '../../src/testing/index.js';
import { call, cobRWebhookNotification1, pixWebhook1, pixWebhook2, recWebhookNotification1, proxySecret, urlSecret } from './fixtures.js';

const auth = { urlSecret: { secret: urlSecret } };

function receiverWith(options: Partial<ApiPixReceiverOptions> = {}) {
  const seen: PixEvent[] = [];
  const receiver = createApiPixReceiver({ auth, ...options } as ApiPixReceiverOptions);
  receiver.onAny((event) => void seen.push(event));
  return { receiver, seen };
}

describe('createApiPixReceiver: setup', () => {
  it.each<[string, unknown]>([
    ['no auth', undefined],
    ['two modes', { urlSecret: { secret: urlSecret }, proxy: { from: ['10.0.0.1'] } }],
    ['an unknown mode', { hmac: { secret: urlSecret } }],
    ['mtls without a CA', { mtls: {} }],
    ['mtls with a CA that is not PEM', { mtls: { ca: 'not a certificate' } }],
    ['a proxy without addresses', { proxy: { from: [] } }],
    ['a proxy address that is not one', { proxy: { from: ['10.0.0.0/33'] } }],
    ['a short URL secret', { urlSecret: { secret: 'short' } }],
    ['an unknown urlSecret option', { urlSecret: { secret: urlSecret, allow: ['1.2.3.4'] } }],
    ['a pinned fingerprint that is not hex', { proxy: { from: ['10.0.0.1'], fingerprints: ['zz'] } }],
    ['a proxy without its secret', { proxy: { from: ['10.0.0.1'] } }],
    ['a proxy with a short secret', { proxy: { from: ['10.0.0.1'], secret: 'short' } }],
    ['a proxy secret header that is not a header name', { proxy: { from: ['10.0.0.1'], secret: proxySecret, secretHeader: 'x bad' } }],
    ['an mtls name that is empty', { mtls: { ca: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----', names: [' '] } }],
    [
      'a proxy secret header that is also the verdict header',
      { proxy: { from: ['10.0.0.1'], secret: proxySecret, secretHeader: 'X-SSL-Client-Verify' } },
    ],
  ])('refuses %s with a PixhookConfigError naming the option', (_what, given) => {
    expect(() => createApiPixReceiver({ auth: given } as ApiPixReceiverOptions)).toThrow(PixhookConfigError);
    expect(() => createApiPixReceiver({ auth: given } as ApiPixReceiverOptions)).toThrow(/auth/);
  });

  it('refuses a proxy without its secret, naming auth.proxy.secret and never echoing a given one', () => {
    expect(() => createApiPixReceiver({ auth: { proxy: { from: ['10.0.0.1'] } } } as unknown as ApiPixReceiverOptions)).toThrow(
      /`auth\.proxy\.secret` is required/,
    );
    let message = '';
    try {
      createApiPixReceiver({ auth: { proxy: { from: ['10.0.0.1'], secret: 'tooShortSecret' } } });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/`auth\.proxy\.secret` must be a string of at least 16 characters/);
    expect(message).not.toContain('tooShortSecret');
  });

  it('refuses a gateway secret and an empty keys list', () => {
    expect(() => createApiPixReceiver({ auth, secret: 'x' } as unknown as ApiPixReceiverOptions)).toThrow(/`secret` does not apply/);
    expect(() => createApiPixReceiver({ auth, keys: [] })).toThrow(/`keys`/);
  });

  it('never puts the URL secret in a configuration error', () => {
    expect(() => createApiPixReceiver({ auth: { urlSecret: { secret: urlSecret, param: '' } } })).toThrow(PixhookConfigError);
    try {
      createApiPixReceiver({ auth: { urlSecret: { secret: urlSecret, param: '' } } });
    } catch (error) {
      expect(String(error)).not.toContain(urlSecret);
    }
  });
});

describe('amounts: the decimal string to cents, exactly', () => {
  it.each([
    ['110.00', 11000],
    ['0.01', 1],
    ['0.29', 29],
    ['1.10', 110],
    ['9999999999.99', 999999999999],
  ])('%s is %i cents', async (valor, cents) => {
    const { receiver, seen } = receiverWith();
    const result = await receiver.receive(call({ pix: [{ ...pixWebhook2, valor }] }));
    expect(result.status).toBe(200);
    expect((seen[0] as PixReceivedEvent).pix.amountInCents).toBe(cents);
  });

  it.each([['1.5'], ['1,50'], ['-1.00'], ['1e3'], [' 1.00'], ['1.000'], ['']])(
    '%j is unreadable: kept, never dispatched',
    async (valor) => {
      const quarantine = memoryQuarantine();
      const { receiver, seen } = receiverWith({ quarantine });
      const result = await receiver.receive(call({ pix: [{ ...pixWebhook2, valor }] }));
      expect(result.status).toBe(200);
      expect(seen).toHaveLength(0);
      expect(await quarantine.list()).toHaveLength(1);
    },
  );

  it('refuses a number as the amount', async () => {
    const { receiver, seen } = receiverWith({ quarantine: memoryQuarantine() });
    await receiver.receive(call({ pix: [{ ...pixWebhook2, valor: 110 }] }));
    expect(seen).toHaveLength(0);
  });
});

describe('bodies as PSPs send them', () => {
  it.each([
    ['{ pix: [...] }', { pix: [pixWebhook2] }, '/webhooks/bank/pix'],
    ['a bare array (Inter)', [pixWebhook2], '/webhooks/bank/pix'],
    ['one Pix object (the spec example)', pixWebhook2, '/webhooks/bank'],
    ['the /pix suffix with a trailing slash', { pix: [pixWebhook2] }, '/webhooks/bank/pix/'],
    ['a doubled slash', { pix: [pixWebhook2] }, '/webhooks/bank//pix'],
    ['pix as a single object', { pix: pixWebhook2 }, '/webhooks/bank'],
  ])('reads %s', async (_what, body, path) => {
    const { receiver, seen } = receiverWith();
    const result = await receiver.receive(call(body, { path }));
    expect(result.status).toBe(200);
    expect(seen.map((e) => e.name)).toEqual(['pix_received']);
    const event = seen[0] as PixReceivedEvent;
    expect(event.pix).toMatchObject({ endToEndId: pixWebhook2.endToEndId, txid: pixWebhook2.txid, amountInCents: 11000 });
    expect(result.key).toBe(`pix_received:${pixWebhook2.endToEndId}`);
  });

  it('answers 400 json_invalid and keeps a body that is not JSON', async () => {
    const quarantine = memoryQuarantine();
    const { receiver } = receiverWith({ quarantine });
    const result = await receiver.receive(call('{"pix": ['));
    expect([result.status, result.reason]).toEqual([400, 'json_invalid']);
    expect(await quarantine.list()).toHaveLength(1);
  });

  it('answers 400 payload_invalid for JSON that is no API Pix shape', async () => {
    const { receiver } = receiverWith({ quarantine: memoryQuarantine() });
    const result = await receiver.receive(call({ hello: 'world' }));
    expect([result.status, result.reason]).toEqual([400, 'payload_invalid']);
  });
});

describe("the spec's own examples", () => {
  it('pixWebhook1: the Pix, then its devolução given as one object, still processing', async () => {
    const { receiver, seen } = receiverWith();
    const result = await receiver.receive(call(pixWebhook1, { path: '/webhooks/bank' }));
    expect(result.status).toBe(200);
    expect(seen.map((e) => e.name)).toEqual(['pix_received', 'pix_refund_updated']);
    const refund = seen[1] as PixRefundUpdatedEvent;
    expect(refund.refund).toMatchObject({
      id: '123ABC',
      rtrId: 'D12345678202009091221abcdf098765',
      amountInCents: 1000,
      status: 'processing',
      endToEndId: pixWebhook1.endToEndId,
    });
    // Still processing: the charge stays paid.
    expect(refund.transaction.status).toBe('paid');
  });

  it('pixWebhook2 inside { pix: [...] }', async () => {
    const { receiver, seen } = receiverWith();
    await receiver.receive(call({ pix: [pixWebhook2] }));
    expect((seen[0] as PixReceivedEvent).pix).toEqual({
      endToEndId: pixWebhook2.endToEndId,
      txid: pixWebhook2.txid,
      amountInCents: 11000,
      paidAt: pixWebhook2.horario,
      payerInfo: '0123456789',
    });
  });

  it('recWebhookNotification1 on /rec and cobRWebhookNotification1 on /cobr', async () => {
    const { receiver, seen } = receiverWith();
    expect((await receiver.receive(call(recWebhookNotification1, { path: '/webhooks/bank/rec' }))).status).toBe(200);
    expect((await receiver.receive(call(cobRWebhookNotification1, { path: '/webhooks/bank/cobr/' }))).status).toBe(200);
    expect(seen.map((e) => e.name)).toEqual(['recurrence_updated', 'recurring_charge_updated']);
    expect(seen[0]).toMatchObject({
      recurrence: { id: 'RR1026652320240821lab77511abf', status: 'APROVADA', updatedAt: '2024-08-22T12:43:53.337Z' },
    });
    expect(seen[1]).toMatchObject({
      recurringCharge: { txid: '3136957d93134f2184b369e8f1c0729d', recurrenceId: 'RR1234567820240115abcdefghijk', status: 'ATIVA' },
    });
  });

  it('a refund returned later moves to a new key: the same Pix is a duplicate, the new status is news', async () => {
    const { receiver, seen } = receiverWith();
    await receiver.receive(call(pixWebhook1, { path: '/webhooks/bank' }));
    const returned = {
      ...pixWebhook1,
      devolucoes: [
        {
          ...pixWebhook1.devolucoes,
          status: 'DEVOLVIDO',
          horario: { solicitacao: pixWebhook1.horario, liquidacao: '2020-09-09T20:16:00Z' },
        },
      ],
    };
    const result = await receiver.receive(call({ pix: [returned] }));
    expect(result.status).toBe(200);
    expect(seen.map((e) => e.name)).toEqual(['pix_received', 'pix_refund_updated', 'pix_refund_updated']);
    const last = seen[2] as PixRefundUpdatedEvent;
    expect(last.refund.status).toBe('returned');
    expect(last.transaction).toMatchObject({ status: 'refunded', refund: { id: '123ABC', amountInCents: 1000 } });
  });
});

describe('batches: each item its own event, exactly once', () => {
  const random = seededRandom(29);
  const batch = Array.from({ length: 50 }, (_, i) => apiPixPix({ amountInCents: 100 + i, random }));

  it('a 50-item call: 50 events, one answer', async () => {
    const { receiver, seen } = receiverWith();
    const result = await receiver.receive(call(apiPixBody(batch)));
    expect(result.status).toBe(200);
    expect(seen.map((e) => (e as PixReceivedEvent).pix.endToEndId)).toEqual(batch.map((p) => p.endToEndId));
  });

  it('retried after a crash in the middle, on another instance: every item handled once', async () => {
    const store = memoryDedupeStore();
    const handled = new Map<string, number>();
    const count = (event: PixEvent) => {
      const id = (event as PixReceivedEvent).pix.endToEndId;
      handled.set(id, (handled.get(id) ?? 0) + 1);
    };
    // The first instance's handler dies on item 25 (its claim is released: the run did not finish).
    const first = createApiPixReceiver({ auth, store });
    first.on('pix_received', (event) => {
      if (event.pix.endToEndId === batch[25]!.endToEndId) throw new Error('crash');
      count(event);
    });
    const failed = await first.receive(call(apiPixBody(batch)));
    expect([failed.status, failed.reason]).toEqual([500, 'handler_failed']);
    expect(handled.size).toBe(49);

    const second = createApiPixReceiver({ auth, store });
    second.on('pix_received', count);
    const retried = await second.receive(call(apiPixBody(batch)));
    expect(retried.status).toBe(200);
    expect(handled.size).toBe(50);
    expect([...handled.values()].every((n) => n === 1)).toBe(true);
  });

  it('an unreadable item is kept with the batch bytes and reported; the readable ones are handled and the call answered 200', async () => {
    const quarantine = memoryQuarantine();
    const invalid: string[] = [];
    const { receiver, seen } = receiverWith({ quarantine, onInvalid: (d) => void invalid.push(d.message) });
    const body = JSON.stringify({ pix: [batch[0], { ...batch[1], valor: '1,00' }, batch[2]] });
    const result = await receiver.receive(call(body));
    expect(result.status).toBe(200);
    expect(seen).toHaveLength(2);
    expect(invalid).toEqual([expect.stringContaining('pix.1.valor')]);
    const [kept] = await quarantine.list();
    expect(kept!.size).toBe(new TextEncoder().encode(body).byteLength);
    expect(new TextDecoder().decode((await quarantine.show(kept!.id))!.bytes)).toBe(body);
  });

  it('answers 503 when an unreadable item cannot be kept, so the PSP retries (the rest answer duplicate then)', async () => {
    const broken = { put: () => Promise.reject(new Error('disk full')) };
    const { receiver, seen } = receiverWith({ quarantine: broken });
    const body = JSON.stringify({ pix: [batch[0], { ...batch[1], valor: 'x' }] });
    const result = await receiver.receive(call(body));
    expect([result.status, result.reason]).toEqual([503, 'store_unavailable']);
    expect(seen).toHaveLength(1);
  });

  it('journals the call once, with its items', async () => {
    const journal = memoryJournal();
    const { receiver } = receiverWith({ journal });
    await receiver.receive(call(apiPixBody([batch[0]!, { ...batch[1]!, chave: 'loja@example.com' }])));
    await receiver.drain();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const entries = await journal.list();
    expect(entries).toHaveLength(1);
    expect(entries[0]!.items).toEqual([
      expect.objectContaining({ event: 'pix_received', endToEndId: batch[0]!.endToEndId }),
      expect.objectContaining({ event: 'pix_received', endToEndId: batch[1]!.endToEndId, pixKey: 'loja@example.com' }),
    ]);
    expect(JSON.stringify(entries[0])).not.toContain(urlSecret);
  });
});

describe('keys: a Pix to another key is never credited', () => {
  it('keeps it in the quarantine and dispatches only the merchant’s own', async () => {
    const quarantine = memoryQuarantine();
    const { receiver, seen } = receiverWith({ keys: ['loja@example.com'], quarantine });
    const mine = apiPixPix({ key: 'loja@example.com' });
    const theirs = apiPixPix({ key: 'outra@example.com' });
    const keyless = apiPixPix();
    const result = await receiver.receive(call(apiPixBody([mine, theirs, keyless])));
    expect(result.status).toBe(200);
    expect(seen.map((e) => (e as PixReceivedEvent).pix.endToEndId)).toEqual([mine.endToEndId]);
    const [kept] = await quarantine.list();
    expect(kept!.message).toMatch(/pix\.1\.chave.*unknown_key/);
    expect(kept!.message).toMatch(/pix\.2\.chave/);
  });
});

describe('the payment book understands the standard', () => {
  it('checks a Pix against the charge expected by its txid: amount, a second payment by endToEndId, no txid', async () => {
    const book = memoryPaymentBook();
    await book.expect({ id: 'txid0000000000000000000000001', amountInCents: 5000 });
    const { receiver, seen } = receiverWith({
      book,
      policy: { amount_mismatch: 'hold', duplicate_payment: 'hold', unknown_charge: 'hold' },
    });
    const right = apiPixPix({ txid: 'txid0000000000000000000000001', amountInCents: 5000 });
    expect((await receiver.receive(call(apiPixBody([right])))).reason).toBeUndefined();
    const second = apiPixPix({ txid: 'txid0000000000000000000000001', amountInCents: 5000 });
    expect((await receiver.receive(call(apiPixBody([second])))).reason).toBe('held');
    const noTxid = apiPixPix({ txid: null, amountInCents: 700 });
    expect((await receiver.receive(call(apiPixBody([noTxid])))).reason).toBe('held');
    const wrongAmount = apiPixPix({ txid: 'txid0000000000000000000000002', amountInCents: 1 });
    await book.expect({ id: 'txid0000000000000000000000002', amountInCents: 2 });
    expect((await receiver.receive(call(apiPixBody([wrongAmount])))).reason).toBe('held');
    expect(seen).toHaveLength(1);
    const held = await book.held();
    expect(held.map((h) => h.violations.map((v) => v.reason))).toEqual(
      expect.arrayContaining([['duplicate_payment'], ['unknown_charge'], ['amount_mismatch']]),
    );
  });

  it('a returned refund moves the charge to refunded', async () => {
    const book = memoryPaymentBook();
    const { receiver } = receiverWith({ book });
    const pix = apiPixPix({ txid: 'txid0000000000000000000000003', amountInCents: 5000 });
    await receiver.receive(call(apiPixBody([pix])));
    const refund = apiPixRefund({ amountInCents: 2000 });
    await receiver.receive(call(apiPixBody([{ ...pix, devolucoes: [refund] }])));
    const state = await book.get('txid0000000000000000000000003');
    expect(state?.status).toBe('refunded');
  });
});

describe('urlSecret and proxy decisions (the core side; real TLS and nginx are in their own tests)', () => {
  it.each([
    ['no secret', { secret: null }, 401, 'url_secret_mismatch'],
    ['a wrong secret', { secret: urlSecret.replace('a', 'b') }, 401, 'url_secret_mismatch'],
  ] as const)('refuses %s', async (_what, options, status, reason) => {
    const { receiver, seen } = receiverWith();
    const result = await receiver.receive(call({ pix: [pixWebhook2] }, options));
    expect([result.status, result.reason]).toEqual([status, reason]);
    expect(seen).toHaveLength(0);
    expect(result.body).not.toContain(urlSecret);
  });

  it('refuses an address outside allowFrom with 403', async () => {
    const { receiver } = receiverWith({ auth: { urlSecret: { secret: urlSecret, allowFrom: ['203.0.113.0/24'] } } });
    expect((await receiver.receive(call({ pix: [pixWebhook2] }, { address: '198.51.100.7' }))).status).toBe(403);
    expect((await receiver.receive(call({ pix: [pixWebhook2] }, { address: '::ffff:203.0.113.9' }))).status).toBe(200);
  });

  it('proxy: believes the verdict only from the proxy', async () => {
    const { receiver, seen } = receiverWith({ auth: { proxy: { from: ['10.0.0.0/8', '::1'], secret: proxySecret } } });
    const secret = { 'x-pixhook-proxy-secret': proxySecret };
    const headers = { ...secret, 'x-ssl-client-verify': 'SUCCESS', 'x-ssl-client-fingerprint': 'ab'.repeat(20) };
    const from = (address: string, extra: Record<string, string> = headers) => ({
      ...call({ pix: [pixWebhook2] }, { address, secret: null }),
      headers: extra,
    });
    expect((await receiver.receive(from('192.0.2.1'))).reason).toBe('address_not_allowed');
    expect((await receiver.receive(from('10.1.2.3', secret))).reason).toBe('client_certificate_required');
    expect((await receiver.receive(from('10.1.2.3', { ...headers, 'x-pixhook-proxy-secret': 'guessed' }))).reason).toBe(
      'proxy_secret_mismatch',
    );
    expect((await receiver.receive(from('10.1.2.3', { ...secret, 'x-ssl-client-verify': 'FAILED:self signed' }))).reason).toBe(
      'client_certificate_rejected',
    );
    expect((await receiver.receive(from('10.1.2.3'))).status).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it(`amounts in builders round-trip: ${apiPixAmount(11000)}`, () => {
    expect([apiPixAmount(11000), apiPixAmount(1), apiPixAmount(0)]).toEqual(['110.00', '0.01', '0.00']);
  });
});
