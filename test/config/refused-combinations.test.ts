import { describe, expect, it } from 'vitest';
import type { InvalidDelivery, QuarantineStore } from '../../src/dedupe/quarantine-store.js';
import { memoryDedupeStore } from '../../src/dedupe/memory-dedupe-store.js';
import { createProcessing, createReceiver, PixhookConfigError, type QueuedEvent, type ReceiverOptions } from '../../src/index.js';
import { internalsOf } from '../../src/adapter-kit/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const secret = 'whsec_combinations';
const queue = { enqueue: async (_job: QueuedEvent) => {} };

function memoryQuarantine(): QuarantineStore & { kept: InvalidDelivery[] } {
  const kept: InvalidDelivery[] = [];
  return {
    kept,
    put: async (delivery) => {
      kept.push(delivery);
      return `q${kept.length}`;
    },
  };
}

/** A dedupe store with a quarantine, as the Redis and Postgres stores have. */
function storeWithQuarantine() {
  const quarantine = memoryQuarantine();
  return { store: Object.assign(memoryDedupeStore(), { quarantine }), quarantine };
}

function invalidDelivery() {
  const body = bytesOf('{"event":"transaction_paid"'); // verified, but not JSON
  return { method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body };
}

function refusal(call: () => unknown): PixhookConfigError {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(PixhookConfigError);
    return error as PixhookConfigError;
  }
  throw new Error('expected a PixhookConfigError, but the call was accepted');
}

describe('createReceiver with a shared processing refuses the processing options it would ignore', () => {
  it('{ mode: "durable", queue, processing } is refused, naming mode and queue (it ran handlers inline)', () => {
    const processing = createProcessing();
    const error = refusal(() => createReceiver({ secret, mode: 'durable', queue, processing } as unknown as ReceiverOptions));
    expect(error.message).toBe(
      'pixhook: `mode`, `queue` are ignored when `processing` is given (it runs events as createProcessing was told); pass them to createProcessing instead.',
    );
  });

  it('is a type error too', () => {
    const processing = createProcessing();
    // @ts-expect-error processing options belong to createProcessing when a processing is shared
    expect(() => createReceiver({ secret, mode: 'durable', queue, processing })).toThrow(PixhookConfigError);
  });

  it.each<[string, Record<string, unknown>]>([
    ['mode', { mode: 'background' }],
    ['store', { store: memoryDedupeStore() }],
    ['dedupeKey', { dedupeKey: () => 'k' }],
    ['dedupeTtlMs', { dedupeTtlMs: 60_000 }],
    ['claimTtlMs', { claimTtlMs: 5_000 }],
    ['deadlineMs', { deadlineMs: 1_000 }],
    ['handlerTimeoutMs', { handlerTimeoutMs: 1_000 }],
    ['storeTimeoutMs', { storeTimeoutMs: 1_000 }],
    ['orderWaitMs', { orderWaitMs: 1_000 }],
    ['background', { background: { concurrency: 5 } }],
    ['retry', { retry: { attempts: 2 } }],
    ['queue', { queue }],
    ['waitUntil', { waitUntil: () => {} }],
  ])('`%s` with processing is refused', (name, extra) => {
    const error = refusal(() => createReceiver({ secret, processing: createProcessing(), ...extra } as unknown as ReceiverOptions));
    expect(error.message).toBe(
      `pixhook: \`${name}\` is ignored when \`processing\` is given (it runs events as createProcessing was told); pass it to createProcessing instead.`,
    );
  });

  it('what the receiver itself reads is still taken beside processing (logger, telemetry, quarantine, onInvalid, limits)', () => {
    const logger = { info: () => {}, warn: () => {}, error: () => {} };
    expect(() =>
      createReceiver({
        secret,
        processing: createProcessing(),
        logger,
        quarantine: false,
        onInvalid: () => {},
        maxBodyBytes: 1000,
        retryAfterSeconds: 3,
      }),
    ).not.toThrow();
  });

  it('says hasWaitUntil from the shared processing (the serverless adapters check it)', () => {
    const kept = createReceiver({ secret, processing: createProcessing({ mode: 'background', waitUntil: () => {} }) });
    expect(internalsOf(kept).hasWaitUntil).toBe(true);
    expect(internalsOf(createReceiver({ secret, processing: createProcessing({ mode: 'background' }) })).hasWaitUntil).toBe(false);
  });
});

describe('the quarantine of a store given through processing (the README reconcile wiring)', () => {
  it('{ secret, processing } keeps a verified unreadable body in the processing store’s quarantine, like { secret, store }', async () => {
    const viaStore = storeWithQuarantine();
    const direct = createReceiver({ secret, store: viaStore.store });
    expect((await direct.receive(invalidDelivery())).status).toBe(400);
    expect(viaStore.quarantine.kept).toHaveLength(1);

    const viaProcessing = storeWithQuarantine();
    const shared = createReceiver({ secret, processing: createProcessing({ store: viaProcessing.store }) });
    const result = await shared.receive(invalidDelivery());
    expect(result).toMatchObject({ status: 400, reason: 'json_invalid' });
    expect(viaProcessing.quarantine.kept).toHaveLength(1);
    expect(viaProcessing.quarantine.kept[0]).toMatchObject({
      reason: 'json_invalid',
      headers: { 'x-signature': expect.stringMatching(/^sha256=/) },
    });
  });

  it('quarantine: false still turns it off, and an explicit quarantine still wins', async () => {
    const { store, quarantine } = storeWithQuarantine();
    await createReceiver({ secret, processing: createProcessing({ store }), quarantine: false }).receive(invalidDelivery());
    expect(quarantine.kept).toHaveLength(0);
    const explicit = memoryQuarantine();
    await createReceiver({ secret, processing: createProcessing({ store }), quarantine: explicit }).receive(invalidDelivery());
    expect(explicit.kept).toHaveLength(1);
    expect(quarantine.kept).toHaveLength(0);
  });

  it('the processing exposes its store’s quarantine (none for the memory store)', () => {
    const { store, quarantine } = storeWithQuarantine();
    expect(createProcessing({ store }).quarantine).toBe(quarantine);
    expect(createProcessing().quarantine).toBeUndefined();
  });
});

describe('options one mode reads are refused with another mode', () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      'queue without durable (events would run inline, never queued)',
      { queue },
      'pixhook: `queue` applies to mode "durable" only, got mode "inline"; remove it or set mode: "durable".',
    ],
    [
      'queue with background',
      { mode: 'background', queue },
      'pixhook: `queue` applies to mode "durable" only, got mode "background"; remove it or set mode: "durable".',
    ],
    [
      'background options with inline',
      { background: { concurrency: 5 } },
      'pixhook: `background` applies to mode "background" only, got mode "inline"; remove it or set mode: "background".',
    ],
    [
      'background options with durable',
      { mode: 'durable', queue, background: { concurrency: 5 } },
      'pixhook: `background` applies to mode "background" only, got mode "durable"; remove it or set mode: "background".',
    ],
    [
      'deadlineMs with background',
      { mode: 'background', deadlineMs: 1_000 },
      'pixhook: `deadlineMs` applies to mode "inline" only (it bounds the answer), got mode "background"; use handlerTimeoutMs to bound runs.',
    ],
  ])('%s', (_what, options, message) => {
    expect(refusal(() => createProcessing(options as never)).message).toBe(message);
    expect(refusal(() => createReceiver({ secret, ...options } as ReceiverOptions)).message).toBe(message);
  });

  it('signature.toleranceSeconds with the sha256 scheme is refused (that scheme has no timestamp)', () => {
    const error = refusal(() => createReceiver({ secret, signature: { scheme: 'sha256', toleranceSeconds: 60 } as never }));
    expect(error.message).toMatch(/^pixhook: `signature.toleranceSeconds` applies to the timestamped scheme only/);
  });

  it('each mode still takes its own options', () => {
    expect(() => createProcessing({ mode: 'background', background: { concurrency: 5 }, handlerTimeoutMs: 1_000 })).not.toThrow();
    expect(() => createProcessing({ mode: 'durable', queue, handlerTimeoutMs: 1_000 })).not.toThrow();
    expect(() => createProcessing({ mode: 'inline', deadlineMs: 1_000 })).not.toThrow();
  });
});
