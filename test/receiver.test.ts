import { describe, expect, it, vi } from 'vitest';
import type { DedupeStore } from '../src/dedupe/dedupe-store.js';
import { memoryDedupeStore } from '../src/dedupe/memory-dedupe-store.js';
import type { HandlerFailure } from '../src/index.js';
import { PixhookConfigError, PixhookError } from '../src/index.js';
import { createReceiver } from '../src/index.js';
import { internalsOf } from '../src/adapter-kit/index.js';
import type { QueuedEvent, ReceiverOptions } from '../src/index.js';
import { shortPaid, unknownEvent, variantAPaid, variantBPaid } from './contract/fixtures.js';
import { settled, useFakeClock } from './helpers/fake-clock.js';
import { bytesOf, signBytes } from './helpers/signing.js';

const secret = 'whsec_receiver_unit';

function delivery(payload: unknown, withSecret = secret) {
  const body = bytesOf(payload);
  return { method: 'POST', headers: { 'X-Signature': signBytes(body, withSecret) }, body };
}

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message?: string }[] = [];
  const at = (level: string) => (fields: object, message?: string) =>
    void lines.push({ level, fields: fields as Record<string, unknown>, message });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

describe('createReceiver options', () => {
  it.each<[string, Partial<ReceiverOptions>]>([
    ['an empty secret', { secret: '' }],
    ['a blank secret', { secret: '   ' }],
    ['no secrets', { secret: [] }],
    ['an unknown mode', { secret, mode: 'eventual' as never }],
    ['durable without a queue', { secret, mode: 'durable' }],
    ['a negative deadline', { secret, deadlineMs: -1 }],
    ['a NaN body limit', { secret, maxBodyBytes: Number.NaN }],
  ])('refuses %s with a PixhookConfigError', (_what, options) => {
    expect(() => createReceiver(options as ReceiverOptions)).toThrow(PixhookConfigError);
  });

  it('never puts the secret in a configuration error', () => {
    try {
      createReceiver({ secret, deadlineMs: 0 });
    } catch (error) {
      expect(String(error)).not.toContain(secret);
    }
    expect.assertions(1);
  });
});

describe('receive', () => {
  it('reads the header case-insensitively from a Fetch Headers object', async () => {
    const receiver = createReceiver({ secret });
    const body = bytesOf(variantAPaid);
    const result = await receiver.receive({ method: 'POST', headers: new Headers({ 'X-SIGNATURE': signBytes(body, secret) }), body });
    expect(result.status).toBe(200);
  });

  it('accepts a body reader, an ArrayBuffer or a string', async () => {
    const receiver = createReceiver({ secret });
    const body = bytesOf(shortPaid);
    const headers = { 'x-signature': signBytes(body, secret) };
    expect((await receiver.receive({ headers, body: async () => body })).status).toBe(200);
    const other = createReceiver({ secret });
    expect(
      (await other.receive({ headers, body: body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer })).status,
    ).toBe(200);
    const third = createReceiver({ secret });
    expect((await third.receive({ headers, body: JSON.stringify(shortPaid) })).status).toBe(200);
  });

  it('answers body_already_parsed (500) with the fix when given a parsed object, and exposes the error', async () => {
    const receiver = createReceiver({ secret });
    const result = await receiver.receive({ headers: {}, body: variantAPaid as unknown as string });
    expect(result).toMatchObject({ status: 500, reason: 'body_already_parsed' });
    expect(result.error).toBeInstanceOf(PixhookError);
    expect(result.error?.code).toBe('body_already_parsed');
    // The core knows no framework: its text never tells a node:http user to move express.json().
    expect(result.message).not.toMatch(/express/i);
    expect(result.message).toMatch(/already consumed by a body parser/);
  });

  it('maps a reader failure to body_unreadable and a PixhookError to its own reason', async () => {
    const receiver = createReceiver({ secret });
    expect((await receiver.receive({ headers: {}, body: () => Promise.reject(new Error('socket hang up')) })).reason).toBe(
      'body_unreadable',
    );
    expect(
      (await receiver.receive({ headers: {}, body: () => Promise.reject(new PixhookError('body_too_large', 'too big')) })).status,
    ).toBe(413);
  });

  it('reject() gives the contract answer for a failure an adapter found', () => {
    const receiver = createReceiver({ secret });
    expect(internalsOf(receiver).reject('body_too_large')).toMatchObject({ status: 413, reason: 'body_too_large' });
    expect(internalsOf(receiver).reject('method_not_allowed').headers['allow']).toBe('POST');
  });

  it('uses a custom dedupe key', async () => {
    const seen: string[] = [];
    const receiver = createReceiver({ secret, dedupeKey: (e) => `custom:${e.name}` }).onAny((_e, ctx) => void seen.push(ctx.key!));
    await receiver.receive(delivery(variantAPaid));
    expect(seen).toEqual(['custom:transaction_paid']);
    expect((await receiver.receive(delivery(variantBPaid))).reason).toBe('duplicate');
  });

  it('answers 500 internal_error, without crashing, when a custom dedupe key throws', async () => {
    const receiver = createReceiver({
      secret,
      dedupeKey: () => {
        throw new Error('bug');
      },
    });
    const result = await receiver.receive(delivery(variantAPaid));
    expect(result).toMatchObject({ status: 500, reason: 'internal_error' });
    expect(result.body).not.toContain('bug');
  });

  it('runs named handlers before onAny, only for their names, with the context', async () => {
    const order: string[] = [];
    const receiver = createReceiver({ secret })
      .on('transfer_completed', () => void order.push('transfer'))
      .on(['transaction_paid', 'transaction_refunded'], (e, ctx) => void order.push(`${e.name}#${ctx.attempt}:${ctx.mode}`))
      .onAny((e) => void order.push(`any:${e.name}`));
    await receiver.receive(delivery(variantAPaid));
    expect(order).toEqual(['transaction_paid#1:inline', 'any:transaction_paid']);
  });

  it('hands unknown events to onUnknown; a failing onUnknown still acknowledges and reaches onError', async () => {
    const failures: HandlerFailure[] = [];
    const receiver = createReceiver({ secret })
      .onUnknown(() => {
        throw new Error('nope');
      })
      .onError((f) => void failures.push(f));
    const typed = vi.fn();
    receiver.onAny(typed);
    const result = await receiver.receive(delivery(unknownEvent));
    expect(result).toMatchObject({ status: 200, reason: 'unknown_event' });
    expect(typed).not.toHaveBeenCalled();
    expect(failures[0]?.event.name).toBe('transaction_chargeback_opened');
  });

  it('in inline mode answers an unknown event within the deadline even while onUnknown still runs', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let finished = false;
    const receiver = createReceiver({ secret, deadlineMs: 20 }).onUnknown(async () => {
      await gate;
      finished = true;
    });
    const result = await receiver.receive(delivery(unknownEvent));
    expect([result.status, result.reason, finished]).toEqual([200, 'unknown_event', false]);
    release();
    await receiver.drain();
    expect(finished).toBe(true);
  });

  it('calls onError with the handler error and keeps going when onError itself throws', async () => {
    const seen: unknown[] = [];
    const receiver = createReceiver({ secret })
      .onAny(() => {
        throw new Error('db down');
      })
      .onError(() => {
        throw new Error('alerting down');
      })
      .onError((f) => void seen.push(f.error));
    const result = await receiver.receive(delivery(variantAPaid));
    expect(result.reason).toBe('handler_failed');
    expect(String(seen[0])).toMatch(/db down/);
  });
});

describe('dedupe store failures fail closed', () => {
  const failing: DedupeStore = {
    claim: () => Promise.reject(new Error('ECONNREFUSED')),
    complete: () => Promise.reject(new Error('ECONNREFUSED')),
    release: () => Promise.reject(new Error('ECONNREFUSED')),
    extend: () => Promise.reject(new Error('ECONNREFUSED')),
  };

  it('answers 503 store_unavailable with Retry-After and runs no handler', async () => {
    const handler = vi.fn();
    const receiver = createReceiver({ secret, store: failing, retryAfterSeconds: 7 }).onAny(handler);
    const result = await receiver.receive(delivery(variantAPaid));
    expect(result).toMatchObject({ status: 503, reason: 'store_unavailable' });
    expect(result.headers['retry-after']).toBe('7');
    expect(handler).not.toHaveBeenCalled();
  });

  it('bounds a hung store by storeTimeoutMs', async () => {
    const hung: DedupeStore = {
      claim: () => new Promise(() => {}),
      complete: async () => true,
      release: async () => {},
      extend: async () => true,
    };
    const receiver = createReceiver({ secret, store: hung, storeTimeoutMs: 30 });
    expect((await receiver.receive(delivery(variantAPaid))).reason).toBe('store_unavailable');
  });

  it('still answers 200 when marking done fails after the handler succeeded', async () => {
    const store: DedupeStore = {
      claim: async () => 'claimed' as const,
      complete: () => Promise.reject(new Error('gone')),
      release: async () => {},
      extend: async () => true,
    };
    const { lines, logger } = recordingLogger();
    const receiver = createReceiver({ secret, store, logger }).onAny(() => {});
    expect((await receiver.receive(delivery(variantAPaid))).status).toBe(200);
    expect(lines.some((l) => l.level === 'error' && /could not mark an event done/.test(l.message ?? ''))).toBe(true);
  });

  it('renews a claim while a long handler runs, when the store can', async () => {
    // A fake clock (installed before the store, which reads it): the renewals fire because three TTLs pass while the
    // handler runs, not because a busy machine fired the renewal timer before the handler's own timer.
    useFakeClock();
    const extended: string[] = [];
    const base = memoryDedupeStore();
    const store: DedupeStore = {
      local: false,
      claim: base.claim,
      complete: base.complete,
      release: base.release,
      extend: async (key, owner, ttl) => (extended.push(key), base.extend(key, owner, ttl)),
    };
    const receiver = createReceiver({ secret, store, claimTtlMs: 40 }).onAny(() => new Promise((r) => setTimeout(r, 120)));
    expect((await settled(receiver.receive(delivery(variantAPaid)))).status).toBe(200);
    expect(extended.length).toBeGreaterThanOrEqual(2);
    expect([...new Set(extended)]).toEqual([expect.stringMatching(/^transaction_paid:tx_a_0001:paid:\d+$/)]);
  });
});

describe('background mode', () => {
  it('retries a failing handler with backoff, then succeeds once', async () => {
    let calls = 0;
    const attempts: number[] = [];
    const receiver = createReceiver({ secret, mode: 'background', retry: { attempts: 3, backoff: { delayMs: 1 } } }).onAny((_e, ctx) => {
      calls++;
      attempts.push(ctx.attempt);
      if (calls < 3) throw new Error('flaky');
    });
    expect((await receiver.receive(delivery(variantAPaid))).status).toBe(200);
    await receiver.drain();
    expect(attempts).toEqual([1, 2, 3]);
    expect((await receiver.receive(delivery(variantAPaid))).reason).toBe('duplicate');
    expect(receiver.metrics()).toMatchObject({ handled: 1, failed: 2, duplicates: 1 });
  });

  it('after the last attempt calls onError once and releases the claim so a retry runs again', async () => {
    const failures: HandlerFailure[] = [];
    let calls = 0;
    const receiver = createReceiver({ secret, mode: 'background', retry: { attempts: 2, backoff: { delayMs: 0 } } })
      .onAny(() => {
        calls++;
        throw new Error('always');
      })
      .onError((f) => void failures.push(f));
    await receiver.receive(delivery(variantAPaid));
    await receiver.drain();
    expect(calls).toBe(2);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({
      attempt: 2,
      mode: 'background',
      key: expect.stringMatching(/^transaction_paid:tx_a_0001:paid:\d+$/),
    });
    expect((await receiver.receive(delivery(variantAPaid))).reason).toBeUndefined();
    await receiver.drain();
    expect(calls).toBe(4);
  });

  it('answers 503 queue_full past maxQueued and releases that claim', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const receiver = createReceiver({ secret, mode: 'background', background: { concurrency: 1, maxQueued: 1 } }).onAny(() => gate);
    expect((await receiver.receive(delivery(variantAPaid))).status).toBe(200);
    const full = await receiver.receive(delivery(variantBPaid));
    expect(full).toMatchObject({ status: 503, reason: 'queue_full' });
    release();
    await receiver.drain();
    expect((await receiver.receive(delivery(variantBPaid))).status).toBe(200);
    await receiver.drain();
  });

  it('hands the work to waitUntil (serverless), per receiver or per request', async () => {
    const kept: Promise<unknown>[] = [];
    const receiver = createReceiver({ secret, mode: 'background', waitUntil: (p) => void kept.push(p) }).onAny(() => {});
    expect(internalsOf(receiver).hasWaitUntil).toBe(true);
    await receiver.receive(delivery(variantAPaid));
    const perRequest: Promise<unknown>[] = [];
    await receiver.receive({ ...delivery(variantBPaid), waitUntil: (p) => void perRequest.push(p) });
    expect([kept.length, perRequest.length]).toEqual([1, 1]);
    await Promise.all([...kept, ...perRequest]);
  });
});

describe('durable mode', () => {
  function memoryQueue(fail = false) {
    const jobs: QueuedEvent[] = [];
    return {
      jobs,
      queue: {
        enqueue: async (job: QueuedEvent) => {
          if (fail) throw new Error('redis down');
          jobs.push(job);
        },
      },
    };
  }

  it('enqueues the verified event with its key, answers 200, and duplicates answer 200 duplicate', async () => {
    const { jobs, queue } = memoryQueue();
    const handler = vi.fn();
    const receiver = createReceiver({ secret, mode: 'durable', queue }).onAny(handler);
    expect((await receiver.receive(delivery(variantBPaid))).status).toBe(200);
    expect(handler).not.toHaveBeenCalled();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({
      key: 'transaction_paid:tx_b_0001:paid:2500:e2e=E12345678202611221200abcdefghijk',
      name: 'transaction_paid',
      source: 'webhook',
    });
    // The verified bytes themselves: a string cannot fail to serialize, whatever the payload's depth.
    expect(JSON.parse(jobs[0]!.body)).toEqual(variantBPaid);
    expect((await receiver.receive(delivery(variantBPaid))).reason).toBe('duplicate');
  });

  it('answers 503 enqueue_failed and releases the claim when the queue refuses', async () => {
    const { queue } = memoryQueue(true);
    const receiver = createReceiver({ secret, mode: 'durable', queue });
    expect(await receiver.receive(delivery(variantBPaid))).toMatchObject({ status: 503, reason: 'enqueue_failed' });
    expect((await receiver.receive(delivery(variantBPaid))).reason).toBe('enqueue_failed');
  });

  it('runQueued runs handlers, rethrows failures, and counts dead letters on the final attempt', async () => {
    const { jobs, queue } = memoryQueue();
    const failures: HandlerFailure[] = [];
    let fail = true;
    const receiver = createReceiver({ secret, mode: 'durable', queue })
      .onAny(() => {
        if (fail) throw new Error('x');
      })
      .onError((f) => void failures.push(f));
    await receiver.receive(delivery(variantAPaid));
    const job = jobs[0]!;
    await expect(internalsOf(receiver).processing.runQueued(job, { attempt: 1, final: false })).rejects.toThrow('x');
    expect(failures).toHaveLength(0);
    await expect(internalsOf(receiver).processing.runQueued(job, { attempt: 2, final: true })).rejects.toThrow('x');
    expect(failures).toHaveLength(1);
    fail = false;
    await internalsOf(receiver).processing.runQueued(job, { attempt: 1, final: false });
    expect(receiver.metrics()).toMatchObject({ handled: 1, failed: 2, deadLettered: 1 });
    await expect(
      internalsOf(receiver).processing.runQueued({ ...job, body: JSON.stringify({ nope: 1 }) }, { attempt: 1, final: false }),
    ).rejects.toMatchObject({ code: 'payload_invalid' });
  });
});

describe('logs and metrics', () => {
  it('logs one line per delivery with reason, event and resource id, never the secret or the payload', async () => {
    const { lines, logger } = recordingLogger();
    const receiver = createReceiver({ secret: ` ${secret}`, logger }).onAny(() => {});
    await receiver.receive(delivery(variantAPaid, ` ${secret}`));
    await receiver.receive(delivery(variantAPaid, 'forged'));
    const deliveries = lines.filter((l) => l.message === 'pixhook: delivery');
    expect(deliveries.map((l) => [l.level, l.fields['status'], l.fields['reason']])).toEqual([
      ['info', 200, 'handled'],
      ['warn', 401, 'signature_mismatch'],
    ]);
    expect(deliveries[0]?.fields).toMatchObject({ event: 'transaction_paid', resourceId: 'tx_a_0001' });
    expect(deliveries[1]?.fields['hint']).toMatch(/whitespace/);
    await receiver.receive(delivery({ ...variantBPaid, transaction: { ...variantBPaid.transaction, amount: '1' } }, ` ${secret}`));
    expect(lines.at(-1)?.fields).toMatchObject({ reason: 'payload_invalid', hint: expect.stringMatching(/^transaction\.amount: /) });
    const all = JSON.stringify(lines);
    expect(all).not.toContain(secret);
    expect(all).not.toContain('Maria da Silva');
  });

  it('counts received, rejected by reason, duplicates, unknown, handled, failed and ack latency', async () => {
    let fail = true;
    const receiver = createReceiver({ secret }).onAny(() => {
      if (fail) {
        fail = false;
        throw new Error('once');
      }
    });
    await receiver.receive(delivery(variantAPaid));
    await receiver.receive(delivery(variantAPaid));
    await receiver.receive(delivery(variantAPaid));
    await receiver.receive(delivery(unknownEvent));
    await receiver.receive(delivery(variantAPaid, 'forged'));
    await receiver.receive({ method: 'GET', headers: {}, body: null });
    const m = receiver.metrics();
    expect(m).toMatchObject({
      received: 6,
      handled: 1,
      failed: 1,
      duplicates: 1,
      unknownEvents: 1,
      rejected: { handler_failed: 1, signature_mismatch: 1, method_not_allowed: 1 },
    });
    expect(m.ackLatencyMs.count).toBe(6);
    expect(m.ackLatencyMs.buckets.at(-1)).toBe(6);
  });
});
