// The gateway and API Pix are sources of the PSPs' shape (issue 38 §1): the one source pipeline serves a
// gateway source as it serves a PSP's, every source's readers sit in one registry, and a journaled delivery
// names the source that read it, so a replay reads its body with that source's reader.
import { describe, expect, it } from 'vitest';
import { replayBody } from '../../src/console/replay-body.js';
import { eventKey } from '../../src/events/event-key.js';
import type { PixEvent } from '../../src/events/event-types.js';
import { createAnswers } from '../../src/intake/receive-answer.js';
import { receiverOver } from '../../src/intake/receiver-over.js';
import { createProcessing, memoryJournal, type JournalEntry } from '../../src/index.js';
import { createAnswerMetrics } from '../../src/metrics/receiver-metrics.js';
import { createPspReceiver } from '../../src/psp/index.js';
import { verifyCheckedSecret } from '../../src/signature/verify-signature.js';
import { resolveAuth } from '../../src/sources/api-pix/api-pix-auth.js';
import { apiPixSource } from '../../src/sources/api-pix/source.js';
import { gatewaySource } from '../../src/sources/gateway/source.js';
import { readerOf, sourceReaders } from '../../src/sources/readers.js';
import type { Source } from '../../src/sources/source.js';
import { apiPixBody, apiPixPix, buildPayload, pspSamples, signedRequest, signPagBank } from '../../src/testing/index.js';

const secret = 'gateway-secret-of-the-source-test';

function receiverOf(source: Source) {
  const processing = createProcessing({});
  const answers = createAnswerMetrics();
  const kept: string[] = [];
  const receiver = receiverOver(source, {
    processing,
    ownsProcessing: true,
    invalidHandlers: [],
    answers,
    answer: createAnswers(5),
    keep: { whole: async (_, __, detail) => void kept.push(detail), items: async () => true },
    maxBodyBytes: 1024 * 1024,
    fetchTimeoutMs: 1_000,
    report: () => {},
  });
  return { receiver, kept };
}

describe('the gateway as a source', () => {
  const source = gatewaySource({ secrets: [secret], signatureHeader: 'x-signature', verify: verifyCheckedSecret });

  it('runs on the one source pipeline: paid once, a resend is a duplicate, a forged or unsigned body is refused before it is read', async () => {
    const { receiver } = receiverOf(source);
    const paid: [string, string, number][] = [];
    receiver.on('transaction_paid', (event) => void paid.push([event.provider, event.transaction.id, event.transaction.amountInCents]));
    const signed = await signedRequest(buildPayload('transaction_paid', { id: 'tx_source_1', amountInCents: 1500 }), secret);
    const first = await receiver.receive({ method: 'POST', headers: signed.headers, body: signed.bytes });
    expect(first.status).toBe(200);
    expect((await receiver.receive({ method: 'POST', headers: signed.headers, body: signed.bytes })).reason).toBe('duplicate');
    expect(paid).toEqual([['gateway', 'tx_source_1', 1500]]);
    const forged = await receiver.receive({ method: 'POST', headers: { 'x-signature': `sha256=${'0'.repeat(64)}` }, body: signed.bytes });
    expect([forged.status, forged.reason]).toEqual([401, 'signature_mismatch']);
    const unsigned = await receiver.receive({ method: 'POST', headers: {}, body: signed.bytes });
    expect([unsigned.status, unsigned.reason]).toEqual([401, 'signature_missing']);
    await receiver.close();
  });

  it('hashes the bytes however they arrive, reads Variant B, keys as the gateway always has, and rereads its payload', async () => {
    const payload = buildPayload('transaction_paid', { variant: 'b', id: 'tx_source_b', amountInCents: 990 });
    const signed = await signedRequest(payload, secret);
    const check = source.bodyCheck!({ headers: signed.headers });
    check.update(signed.bytes.subarray(0, 10));
    check.update(signed.bytes.subarray(10));
    expect(await check.end()).toEqual({ ok: true });
    const read = source.read(JSON.parse(signed.body), { headers: signed.headers });
    const event = read.events[0]!;
    expect(event.name).toBe('transaction_paid');
    expect(source.key(event)).toBe(eventKey(event));
    expect(sourceReaders.gateway.readBody(event.payload, 'replay')?.[0]?.source).toBe('replay');
    expect(source.read({ event: 'transaction_paid' }, { headers: {} }).invalid?.message).toMatch(/^The body is not a known event shape: /);
  });
});

describe('API Pix as a source', () => {
  const urlSecret = 'a-url-secret-of-32-characters-ok';

  it('authenticates by the URL before the body and reads a call item by item, a Pix to another key kept when nothing holds it', async () => {
    const unknown: (string | undefined)[] = [];
    const source = apiPixSource({
      auth: resolveAuth({ urlSecret: { secret: urlSecret } }),
      keys: new Set(['merchant-key']),
      held: false,
      unknownKey: (seen) => void unknown.push(seen),
    });
    expect(await source.authenticate({ headers: {}, url: '/hook?secret=wrong' })).toMatchObject({
      ok: false,
      reason: 'url_secret_mismatch',
    });
    expect(await source.authenticate({ headers: {}, url: `/hook?secret=${urlSecret}` })).toEqual({ ok: true });
    const body = apiPixBody([apiPixPix({ key: 'merchant-key' }), apiPixPix({ key: 'other-key' })]);
    const read = source.read(JSON.parse(body), { headers: {}, url: '/hook/pix' });
    expect(read.events.map((event) => event.provider)).toEqual(['api-pix']);
    expect(read.failures).toHaveLength(1);
    expect(unknown).toEqual(['other-key']);
    expect(sourceReaders['api-pix'].readBody(JSON.parse(body), 'replay')?.[0]?.name).toBe('pix_received');
    expect(source.read({ nothing: true }, { headers: {} }).invalid?.message).toMatch(/^The body is not a known API Pix shape: /);
  });
});

describe('the sources’ readers, one registry', () => {
  it('rereads each source’s event from its payload, by provider', () => {
    const samples: [keyof typeof sourceReaders, Record<string, unknown>][] = [
      ['gateway', buildPayload('transaction_paid', { id: 'tx_reader', amountInCents: 100 })],
      ['mercado-pago', pspSamples.mercadoPago.payment],
      ['asaas', pspSamples.asaas.paymentReceived],
      ['pagbank', pspSamples.pagbank.orderPaid],
      ['woovi', pspSamples.woovi.chargeCompleted],
      ['pagarme', pspSamples.pagarme.charge],
    ];
    for (const [provider, payload] of samples) {
      const event = sourceReaders[provider].readBody(JSON.parse(JSON.stringify(payload)), 'replay')?.[0];
      expect([provider, event?.provider, event?.source]).toEqual([provider, provider, 'replay']);
    }
    // An id-only body holds no event to replay without the PSP's API.
    expect(
      sourceReaders['mercado-pago'].readBody(JSON.parse(JSON.stringify(pspSamples.mercadoPago.notification)), 'replay'),
    ).toBeUndefined();
    expect(sourceReaders.pagarme.readBody(JSON.parse(JSON.stringify(pspSamples.pagarme.chargePaidHook)), 'replay')).toBeUndefined();
    expect(sourceReaders['api-pix'].readBody({ nothing: true }, 'replay')).toBeUndefined();
    expect(sourceReaders.gateway.readBody('not an object', 'replay')).toBeUndefined();
    expect(readerOf({})).toBe(sourceReaders.gateway);
    expect(readerOf({ items: [] })).toBe(sourceReaders['api-pix']);
    expect(readerOf({ profile: 'pagbank' })).toBe(sourceReaders.pagbank);
  });

  it('a PSP delivery is journaled under its own source, and its replay reads the body with that source’s reader (it was read as an API Pix call: payload_invalid)', async () => {
    const journal = memoryJournal();
    const receiver = createPspReceiver({ psp: 'pagbank', token: 'pagbank-token', journal });
    const body = JSON.stringify(pspSamples.pagbank.orderPaid);
    const answer = await receiver.receive({
      method: 'POST',
      headers: { 'x-authenticity-token': await signPagBank({ token: 'pagbank-token', body }) },
      body,
    });
    expect(answer.status).toBe(200);
    await receiver.close();
    const [entry] = (await journal.list()) as [JournalEntry];
    expect(entry.profile).toBe('pagbank');

    const processing = createProcessing({});
    const ran: PixEvent[] = [];
    processing.on('transaction_paid', (event) => void ran.push(event));
    const replay = await replayBody({ bytes: new TextEncoder().encode(entry.body!), processing, journal, replayOf: entry.id, entry });
    expect([replay.status, replay.reason, replay.profile]).toEqual([200, undefined, 'pagbank']);
    expect(ran.map((event) => [event.provider, event.source])).toEqual([['pagbank', 'replay']]);
    await processing.close();
  });

  // Found from outside: a PagBank order of two charges whose handlers failed was replayed as its first charge only
  // (the reader kept events[0]), so the second charge's payment never ran.
  it('a PagBank order of two charges, both failed, replays both charges through the door', async () => {
    const journal = memoryJournal();
    const receiver = createPspReceiver({ psp: 'pagbank', token: 'pagbank-token', journal });
    receiver.on('transaction_paid', () => {
      throw new Error('down');
    });
    const order = structuredClone(pspSamples.pagbank.orderPaid) as unknown as { charges: Record<string, unknown>[] };
    const second = structuredClone(order.charges[0]!) as {
      id: string;
      amount: { value: number };
      payment_method: { pix: Record<string, string> };
    };
    second.id = 'CHAR_SECOND';
    second.amount.value = 700;
    second.payment_method.pix['end_to_end_id'] = 'E18236120202302081816s0152c8f999';
    order.charges.push(second);
    const body = JSON.stringify(order);
    const answer = await receiver.receive({
      method: 'POST',
      headers: { 'x-authenticity-token': await signPagBank({ token: 'pagbank-token', body }) },
      body,
    });
    expect(answer.status).toBe(500);
    await receiver.close();
    const [entry] = (await journal.list()) as [JournalEntry];
    expect(entry.items?.map((item) => item.reason)).toEqual(['handler_failed', 'handler_failed']);

    const processing = createProcessing({});
    const ran: string[] = [];
    processing.on('transaction_paid', (event) => void ran.push(event.transaction.id));
    const replay = await replayBody({ bytes: new TextEncoder().encode(entry.body!), processing, journal, replayOf: entry.id, entry });
    expect(replay.status).toBe(200);
    expect(ran.sort()).toEqual(['CHAR_3B5E7B9A-2E4B-4F1D-8C3E-1D2F3A4B5C6D', 'CHAR_SECOND']);
    await processing.close();
    expect([sourceReaders.pagbank.readBody('not an order', 'replay'), sourceReaders.pagbank.readBody({ charges: [] }, 'replay')]).toEqual([
      undefined,
      undefined,
    ]);
  });
});
