import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node/index.js';
import { createApiPixReceiver, type PixReceivedEvent, type PixRefundUpdatedEvent } from '../../src/api-pix/index.js';
import { createConsole } from '../../src/console/index.js';
import { memoryQuarantine } from '../../src/dedupe/memory-quarantine.js';
import {
  createProcessing,
  createReceiver,
  memoryDedupeStore,
  memoryJournal,
  memoryPaymentBook,
  PixhookConfigError,
  type PaymentPolicy,
  type PixEvent,
  type QueuedEvent,
} from '../../src/index.js';
import { apiPixBody, apiPixPix, apiPixRefund } from '../../src/testing/index.js';
import { serverTarget } from '../contract/contract-target.js';
import { call, urlSecret } from './fixtures.js';
import { heldForAnotherKey, keyedReceiver, mine, theirs } from './unknown-key-scenario.js';

const auth = { urlSecret: { secret: urlSecret } };

describe('unknown_key on the memory book, over receive()', () => {
  it('holds a Pix to another key (and to none), runs the merchant’s own, answers a batch 200, releases once', async () => {
    await heldForAnotherKey(memoryPaymentBook(), memoryDedupeStore());
  });

  it('holds a foreign Pix’s refunds with it, and tells onViolation', async () => {
    const book = memoryPaymentBook();
    const { receiver, ran } = keyedReceiver(book);
    const refunds: PixRefundUpdatedEvent[] = [];
    const told: string[] = [];
    receiver.on('pix_refund_updated', (event) => void refunds.push(event));
    receiver.onViolation((violation, event) => void told.push(`${violation.reason}/${violation.action}/${event.name}`));
    const foreign = apiPixPix({ key: theirs, devolucoes: [apiPixRefund({ status: 'DEVOLVIDO' })] });
    expect((await receiver.receive(call(apiPixBody([foreign])))).status).toBe(200);
    expect([ran, refunds]).toEqual([[], []]);
    expect((await book.held()).map((held) => [held.event.name, held.violations.map((v) => v.reason)])).toEqual([
      ['pix_received', ['unknown_key']],
      ['pix_refund_updated', ['unknown_key']],
    ]);
    expect(told).toEqual(['unknown_key/hold/pix_received', 'unknown_key/hold/pix_refund_updated']);
  });

  it('checks nothing without `keys`: a Pix to any key runs', async () => {
    const book = memoryPaymentBook();
    const seen: PixEvent[] = [];
    const receiver = createApiPixReceiver({ auth, book }).onAny((event) => void seen.push(event));
    const result = await receiver.receive(call(apiPixBody([apiPixPix({ key: theirs }), apiPixPix()])));
    expect([result.status, result.reason]).toEqual([200, undefined]);
    expect(seen).toHaveLength(2);
    expect(seen.map((event) => (event as PixReceivedEvent).keyKnown)).toEqual([undefined, undefined]);
    expect(await book.held()).toEqual([]);
  });

  it('without a book, refuses it at intake as before: kept in the quarantine, told to onInvalid, the rest run', async () => {
    const quarantine = memoryQuarantine();
    const invalid: string[] = [];
    const seen: PixEvent[] = [];
    const receiver = createApiPixReceiver({ auth, keys: [mine], quarantine, onInvalid: (delivery) => void invalid.push(delivery.message) });
    receiver.onAny((event) => void seen.push(event));
    const single = await receiver.receive(call(apiPixBody([apiPixPix({ key: theirs })])));
    expect([single.status, single.reason]).toEqual([200, undefined]);
    const own = apiPixPix({ key: mine });
    const batch = await receiver.receive(call(apiPixBody([own, apiPixPix({ key: theirs })])));
    expect([batch.status, batch.reason]).toEqual([200, undefined]);
    expect(seen.map((event) => (event as PixReceivedEvent).pix.endToEndId)).toEqual([own.endToEndId]);
    expect(invalid).toEqual([
      expect.stringMatching(/^pix\.0\.chave: .*unknown_key/),
      expect.stringMatching(/^pix\.1\.chave: .*unknown_key/),
    ]);
    expect(await quarantine.list()).toHaveLength(2);
  });

  it('holds it through a shared processing with a book; refuses it at intake through one whose book it cannot see', async () => {
    const book = memoryPaymentBook();
    const processing = createProcessing({ book });
    const receiver = createApiPixReceiver({ auth, keys: [mine], processing });
    expect((await receiver.receive(call(apiPixBody([apiPixPix({ key: theirs })])))).reason).toBe('held');
    expect(await book.held()).toHaveLength(1);

    // A Processing that is not createProcessing's: whether it has a book is unknown, so the safe side.
    const accepted: PixEvent[] = [];
    const opaque = { ...processing, acceptNow: (event: PixEvent) => (accepted.push(event), { key: 'k' }) };
    delete (opaque as { acceptDelivery?: unknown }).acceptDelivery;
    const quarantine = memoryQuarantine();
    const other = createApiPixReceiver({ auth, keys: [mine], processing: opaque as typeof processing, quarantine });
    expect((await other.receive(call(apiPixBody([apiPixPix({ key: theirs })])))).status).toBe(200);
    expect(accepted).toEqual([]);
    expect(await quarantine.list()).toHaveLength(1);
  });
});

describe('unknown_key in durable mode', () => {
  it('queues only the merchant’s own Pix: the foreign one is held before the queue, and a release runs it once', async () => {
    const book = memoryPaymentBook();
    const jobs: QueuedEvent[] = [];
    const ran: string[] = [];
    const receiver = createApiPixReceiver({
      auth,
      keys: [mine],
      book,
      mode: 'durable',
      queue: { enqueue: async (job) => void jobs.push(job) },
    }).on('pix_received', (event) => void ran.push(event.pix.endToEndId));
    const own = apiPixPix({ key: mine });
    const foreign = apiPixPix({ key: theirs });
    expect((await receiver.receive(call(apiPixBody([own, foreign])))).status).toBe(200);
    expect(jobs.map((job) => JSON.parse(job.body) as { pix: { endToEndId: string } }).map((body) => body.pix.endToEndId)).toEqual([
      own.endToEndId,
    ]);
    const [held] = await book.held();
    expect((held!.event as PixReceivedEvent).pix.endToEndId).toBe(foreign.endToEndId);
    expect(await receiver.release(held!.heldId)).toEqual({ ok: true });
    expect(ran).toEqual([foreign.endToEndId]);
    expect((await receiver.receive(call(apiPixBody([foreign])))).reason).toBe('duplicate');
  });
});

describe('unknown_key on the console', () => {
  it('shows the held Pix on the held page and /api/held with its reason', async () => {
    const book = memoryPaymentBook();
    const { receiver } = keyedReceiver(book);
    const foreign = apiPixPix({ key: theirs });
    expect((await receiver.receive(call(apiPixBody([foreign])))).reason).toBe('held');
    const consoleApp = createConsole({ journal: memoryJournal(), book, receiver });
    const page = await (await consoleApp.fetch(new Request('http://127.0.0.1/held'))).text();
    expect(page).toContain('<span class="violation">unknown_key</span>');
    expect(page).toContain(foreign.txid!);
    const api = (await (await consoleApp.fetch(new Request('http://127.0.0.1/api/held'))).json()) as unknown;
    expect(api).toMatchObject([
      { state: 'held', violations: [{ reason: 'unknown_key', action: 'hold' }], event: { name: 'pix_received', keyKnown: false } },
    ]);
  });
});

describe('unknown_key over real HTTP (node:http adapter)', () => {
  it('answers held, runs the merchant’s own, a batch 200 with its foreign item held, a release once, then duplicate', async () => {
    const book = memoryPaymentBook();
    const { receiver, ran } = keyedReceiver(book, memoryDedupeStore());
    const target = await serverTarget(createServer(createNodeHandler(receiver)), '/webhooks/bank');
    const send = async (body: string) => {
      const response = await target.send({
        method: 'POST',
        path: `/pix?secret=${urlSecret}`,
        headers: { 'content-type': 'application/json' },
        body: new TextEncoder().encode(body),
      });
      return [response.status, JSON.parse(response.body) as unknown];
    };
    try {
      const foreign = apiPixPix({ key: theirs });
      expect(await send(apiPixBody([foreign]))).toEqual([200, { ok: true, reason: 'held' }]);
      expect(await send(apiPixBody([foreign]))).toEqual([200, { ok: true, reason: 'held' }]);
      const batch = [apiPixPix({ key: mine }), apiPixPix({ key: theirs }), apiPixPix({ key: mine })];
      expect(await send(apiPixBody(batch, { shape: 'bare' }))).toEqual([200, { ok: true }]);
      expect(ran.map((entry) => entry.endToEndId)).toEqual([batch[0]!.endToEndId, batch[2]!.endToEndId]);
      const held = await book.held();
      expect(held.map((entry) => entry.violations.map((violation) => violation.reason))).toEqual([['unknown_key'], ['unknown_key']]);
      const heldForeign = held.find((entry) => (entry.event as PixReceivedEvent).pix.endToEndId === foreign.endToEndId)!;
      expect(await receiver.release(heldForeign.heldId)).toEqual({ ok: true });
      expect(ran.map((entry) => entry.endToEndId)).toEqual([batch[0]!.endToEndId, batch[2]!.endToEndId, foreign.endToEndId]);
      expect(await send(apiPixBody([foreign]))).toEqual([200, { ok: true, reason: 'duplicate' }]);
      expect(ran).toHaveLength(3);
    } finally {
      await target.close();
    }
  });
});

describe('policy: unknown_key is hold only', () => {
  it('defaults to hold and refuses flag at setup, naming the option', () => {
    const flag = { unknown_key: 'flag' } as unknown as PaymentPolicy;
    for (const make of [
      () => createApiPixReceiver({ auth, keys: [mine], book: memoryPaymentBook(), policy: flag }),
      () => createReceiver({ secret: 'whsec_x', book: memoryPaymentBook(), policy: flag }),
    ]) {
      expect(make).toThrow(PixhookConfigError);
      expect(make).toThrow(/^pixhook: `policy\.unknown_key` can only be "hold"/);
    }
    expect(() => createApiPixReceiver({ auth, keys: [mine], book: memoryPaymentBook(), policy: { unknown_key: 'hold' } })).not.toThrow();
  });
});
