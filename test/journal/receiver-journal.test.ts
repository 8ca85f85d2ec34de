import { describe, expect, it } from 'vitest';
import {
  createProcessing,
  createReceiver,
  memoryJournal,
  memoryPaymentBook,
  PixhookConfigError,
  type DeliveryJournal,
  type JournalEntry,
  type ReceiverOptions,
} from '../../src/index.js';
import { variantAPaid, variantBPaid, unknownEvent } from '../contract/fixtures.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const secret = 'whsec_journal_unit';

function delivery(payload: unknown, withSecret = secret, extra: Record<string, unknown> = {}) {
  const body = bytesOf(payload);
  return { method: 'POST', headers: { 'X-Signature': signBytes(body, withSecret) }, body, ...extra };
}

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message?: string }[] = [];
  const at = (level: string) => (fields: object, message?: string) =>
    void lines.push({ level, fields: fields as Record<string, unknown>, message });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

async function only(journal: DeliveryJournal): Promise<JournalEntry> {
  const entries = await journal.list();
  expect(entries).toHaveLength(1);
  return entries[0]!;
}

describe('createReceiver({ journal })', () => {
  it('records a handled delivery with its fields, its verified body, a masked signature and the handler run', async () => {
    const journal = memoryJournal();
    const receiver = createReceiver({ secret, journal }).on('transaction_paid', () => undefined);
    const request = delivery(variantBPaid, secret, { remoteAddress: '203.0.113.7' });
    const result = await receiver.receive(request);
    expect(result.status).toBe(200);
    await receiver.drain();
    const entry = await only(journal);
    expect(entry).toMatchObject({
      remoteAddress: '203.0.113.7',
      channel: 'postback',
      verified: true,
      status: 200,
      event: 'transaction_paid',
      key: result.key,
      resourceId: 'tx_b_0001',
      amountInCents: 2500,
      deliveryId: 'tx_b_0001',
      bodyBytes: request.body.byteLength,
      body: new TextDecoder().decode(request.body),
      attempts: [{ attempt: 1, outcome: 'ok' }],
    });
    expect(entry.reason).toBeUndefined();
    const signature = request.headers['X-Signature'];
    expect(entry.signature).toBe(`sha256=${signature.slice(7, 11)}…`);
    expect(JSON.stringify(entry)).not.toContain(signature.slice(7));
    expect(entry.id).toMatch(/^[0-9a-z]{9}-[0-9a-z]{10}$/);
    expect(Date.parse(entry.at)).toBeGreaterThan(Date.now() - 60_000);
    expect(entry.attempts[0]!.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('never keeps an unverified body: only its size and the reason', async () => {
    const journal = memoryJournal();
    const receiver = createReceiver({ secret, journal });
    const request = delivery(variantAPaid, 'whsec_someone_else');
    expect((await receiver.receive(request)).status).toBe(401);
    await receiver.drain();
    const entry = await only(journal);
    expect(entry).toMatchObject({ verified: false, status: 401, reason: 'signature_mismatch', bodyBytes: request.body.byteLength });
    expect(entry.body).toBeUndefined();
    expect(entry.event).toBeUndefined();
    expect(JSON.stringify(entry)).not.toContain('tx_a_0001');
  });

  it('records a failed handler run, duplicates, unknown events, invalid bodies and a 405', async () => {
    const journal = memoryJournal();
    let fail = true;
    const receiver = createReceiver({ secret, journal }).on('transaction_paid', () => {
      if (fail) throw new Error('db down');
    });
    expect((await receiver.receive(delivery(variantAPaid))).status).toBe(500);
    fail = false;
    expect((await receiver.receive(delivery(variantAPaid))).status).toBe(200);
    expect((await receiver.receive(delivery(variantAPaid))).reason).toBe('duplicate');
    expect((await receiver.receive(delivery(unknownEvent))).reason).toBe('unknown_event');
    expect((await receiver.receive(delivery('not json'))).reason).toBe('json_invalid');
    expect((await receiver.receive({ method: 'GET', headers: {}, body: undefined })).status).toBe(405);
    await receiver.drain();
    const [get, invalid, unknown, duplicate, handled, failed] = await journal.list();
    expect(failed).toMatchObject({ status: 500, reason: 'handler_failed', attempts: [{ outcome: 'failed', error: 'Error: db down' }] });
    expect(handled).toMatchObject({ status: 200, attempts: [{ outcome: 'ok' }] });
    expect(duplicate).toMatchObject({ status: 200, reason: 'duplicate', attempts: [] });
    expect(unknown).toMatchObject({ verified: true, reason: 'unknown_event', event: unknownEvent.event, attempts: [{ outcome: 'ok' }] });
    expect(invalid).toMatchObject({ verified: true, reason: 'json_invalid', body: 'not json' });
    expect(get).toMatchObject({ verified: false, status: 405, reason: 'method_not_allowed', bodyBytes: 0 });
  });

  it('appends each background run to its delivery', async () => {
    const journal = memoryJournal();
    let runs = 0;
    const receiver = createReceiver({ secret, journal, mode: 'background', retry: { attempts: 3, backoff: { delayMs: 1 } } }).on(
      'transaction_paid',
      () => {
        if (++runs < 3) throw new Error(`run ${runs}`);
      },
    );
    expect((await receiver.receive(delivery(variantAPaid))).status).toBe(200);
    expect(await receiver.drain()).toBe(true);
    const entry = await only(journal);
    expect(entry.attempts.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'ok'],
    ]);
  });

  it('marks a replay given to receive() and to processing.accept()', async () => {
    const journal = memoryJournal();
    const processing = createProcessing({ journal }).on('transaction_paid', () => undefined);
    const receiver = createReceiver({ secret, processing });
    await receiver.receive(delivery(variantAPaid, secret, { replayOf: 'q-1' }));
    const { normalizeEvent } = await import('../../src/index.js');
    const normalized = normalizeEvent(variantBPaid, { source: 'replay' });
    if (!normalized.ok) throw new Error('fixture');
    expect(await processing.accept(normalized.event, { replayOf: 'q-2' })).toMatchObject({ key: expect.any(String) });
    expect(await processing.accept(normalized.event, { replayOf: 'q-2' })).toMatchObject({ reason: 'duplicate' });
    await receiver.drain();
    const [again, accepted, received] = await journal.list();
    expect(received).toMatchObject({ replayOf: 'q-1', channel: 'replay', status: 200, attempts: [{ outcome: 'ok' }] });
    expect(accepted).toMatchObject({
      replayOf: 'q-2',
      channel: 'replay',
      verified: true,
      status: 200,
      resourceId: 'tx_b_0001',
      attempts: [{ outcome: 'ok' }],
    });
    expect(again).toMatchObject({ replayOf: 'q-2', status: 200, reason: 'duplicate', attempts: [] });
  });

  it('appends a release to the held delivery', async () => {
    const journal = memoryJournal();
    const book = memoryPaymentBook();
    await book.expect({ id: 'tx_a_0001', amountInCents: 100 });
    const receiver = createReceiver({ secret, journal, book }).on('transaction_paid', () => undefined);
    expect((await receiver.receive(delivery(variantAPaid))).reason).toBe('held');
    await receiver.drain();
    const [held] = await book.held();
    expect(await receiver.release(held!.heldId)).toEqual({ ok: true });
    await receiver.drain();
    const entry = await only(journal);
    expect(entry).toMatchObject({ status: 200, reason: 'held', attempts: [{ attempt: 1, outcome: 'ok', run: 'release' }] });
  });

  it('answers the same whatever the journal does: throwing, rejecting or hanging; each failure is logged and counted', async () => {
    const hung = new Promise<never>(() => undefined);
    const broken: Record<string, DeliveryJournal> = {
      throwing: {
        ...memoryJournal(),
        add: () => {
          throw new Error('journal down');
        },
      },
      rejecting: { ...memoryJournal(), add: () => Promise.reject(new Error('journal down')) },
      hanging: { ...memoryJournal(), add: () => hung },
    };
    for (const [how, journal] of Object.entries(broken)) {
      const { lines, logger } = recordingLogger();
      const receiver = createReceiver({ secret, journal, logger }).on('transaction_paid', () => undefined);
      const plain = createReceiver({ secret }).on('transaction_paid', () => undefined);
      const result = await receiver.receive(delivery(variantAPaid));
      expect(result, how).toEqual(await plain.receive(delivery(variantAPaid)));
      if (how === 'hanging') continue; // its write times out only after journalCallTimeoutMs; see the next test
      await receiver.drain();
      expect(receiver.metrics().journalFailures, how).toBe(1);
      expect(
        lines.some((l) => l.level === 'error' && /journal failed/.test(l.message ?? '')),
        how,
      ).toBe(true);
    }
  });

  it('answers at once while the journal hangs: the answer never waits for it', async () => {
    const journal: DeliveryJournal = { ...memoryJournal(), add: () => new Promise<never>(() => undefined) };
    const receiver = createReceiver({ secret, journal }).on('transaction_paid', () => undefined);
    // A synchronous answer proves nothing waited: the adapters' fast path (internals.handle) answers in this turn.
    const { internalsOf } = await import('../../src/adapter-kit/index.js');
    const handled = internalsOf(receiver).handle(delivery(variantAPaid));
    expect(handled).not.toBeInstanceOf(Promise);
    expect((handled as { status: number }).status).toBe(200);
  });

  it('refuses a journal that is not one, and a journal given beside a shared processing', () => {
    expect(() => createReceiver({ secret, journal: {} as never })).toThrow(PixhookConfigError);
    expect(() => createReceiver({ secret, journal: {} as never })).toThrow(
      'pixhook: `journal` must be a delivery journal (e.g. memoryJournal()), got an object without add, addAttempt, get, list, subscribe',
    );
    expect(() => createReceiver({ secret, journal: 'x' as never })).toThrow('pixhook: `journal` must be a delivery journal');
    const processing = createProcessing();
    expect(() => createReceiver({ secret, processing, journal: memoryJournal() } as unknown as ReceiverOptions)).toThrow(
      /`journal` is ignored when `processing` is given/,
    );
  });

  it('costs nothing without a journal: no entry, no writer, the metrics say 0', async () => {
    const receiver = createReceiver({ secret }).on('transaction_paid', () => undefined);
    await receiver.receive(delivery(variantAPaid));
    expect(receiver.metrics().journalFailures).toBe(0);
  });
});
