import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { resolveEmulatorOptions } from '../../src/emulator/emulator-options.js';
import { startEmulator } from '../../src/emulator/index.js';
import { createProcessing, createReceiver, PixhookConfigError, type ProcessingOptions } from '../../src/index.js';
import { createReconciler } from '../../src/reconcile/index.js';
import { deliver } from '../../src/testing/index.js';
import { variantAPaid } from '../contract/fixtures.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

const secret = 'whsec_bounds';
const queue = { enqueue: async () => {} };

function refusal(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(PixhookConfigError);
    return (error as Error).message;
  }
  throw new Error('expected a PixhookConfigError, but the call was accepted');
}

async function refusalAsync(call: () => Promise<unknown>): Promise<string> {
  const error = await call().then(
    () => new Error('expected a PixhookConfigError, but the call was accepted'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PixhookConfigError);
  return (error as Error).message;
}

describe('processing and receiver options are bounded', () => {
  it.each<[string, ProcessingOptions, string]>([
    [
      'attempts 1e9',
      { mode: 'background', retry: { attempts: 1_000_000_000 } },
      'pixhook: `retry.attempts` must be an integer from 1 to 100, got 1000000000',
    ],
    ['attempts 0', { mode: 'background', retry: { attempts: 0 } }, 'pixhook: `retry.attempts` must be an integer from 1 to 100, got 0'],
    [
      'attempts 2.5',
      { mode: 'background', retry: { attempts: 2.5 } },
      'pixhook: `retry.attempts` must be an integer from 1 to 100, got 2.5',
    ],
    // 1e12 ms overflowed setTimeout and fired after 1 ms.
    [
      'backoff.delayMs 1e12',
      { mode: 'background', retry: { backoff: { delayMs: 1e12 } } },
      'pixhook: `retry.backoff.delayMs` must be an integer from 0 to 86400000 (24 h), got 1000000000000',
    ],
    [
      'backoff.factor 0.5',
      { mode: 'background', retry: { backoff: { factor: 0.5 } } },
      'pixhook: `retry.backoff.factor` must be a number from 1 to 10, got 0.5',
    ],
    [
      'concurrency Infinity',
      { mode: 'background', background: { concurrency: Infinity } },
      'pixhook: `background.concurrency` must be an integer from 1 to 10000, got Infinity',
    ],
    [
      'maxQueued "10"',
      { mode: 'background', background: { maxQueued: '10' as never } },
      'pixhook: `background.maxQueued` must be an integer from 1 to 10000000, got the string "10"',
    ],
    [
      'handlerTimeoutMs 1e12',
      { handlerTimeoutMs: 1e12 },
      'pixhook: `handlerTimeoutMs` must be an integer from 1 to 86400000 (24 h), got 1000000000000',
    ],
    ['deadlineMs 0', { deadlineMs: 0 }, 'pixhook: `deadlineMs` must be an integer from 1 to 86400000 (24 h), got 0'],
    ['orderWaitMs 1e12', { orderWaitMs: 1e12 }, 'pixhook: `orderWaitMs` must be an integer from 1 to 86400000 (24 h), got 1000000000000'],
    ['orderWaitMs 0', { orderWaitMs: 0 }, 'pixhook: `orderWaitMs` must be an integer from 1 to 86400000 (24 h), got 0'],
    [
      'storeTimeoutMs NaN',
      { storeTimeoutMs: Number.NaN },
      'pixhook: `storeTimeoutMs` must be an integer from 1 to 86400000 (24 h), got NaN',
    ],
    ['claimTtlMs 3e9', { claimTtlMs: 3e9 }, 'pixhook: `claimTtlMs` must be an integer from 1 to 86400000 (24 h), got 3000000000'],
    ['dedupeTtlMs 1.5', { dedupeTtlMs: 1.5 }, 'pixhook: `dedupeTtlMs` must be an integer from 1 to 31622400000 (366 days), got 1.5'],
  ])('%s is refused with the option named', (_what, options, message) => {
    expect(refusal(() => createProcessing(options))).toBe(message);
    expect(refusal(() => createReceiver({ secret, ...options }))).toBe(message);
  });

  it('caps every background wait within a timer’s range (24 h), though 1 s doubling 99 times passes it', () => {
    const processing = createProcessing({ mode: 'background', retry: { attempts: 100, backoff: { delayMs: 1_000 } } });
    expect(processing).toBeDefined();
    expect(refusal(() => createProcessing({ mode: 'background', retry: { backoff: { delayMs: 1_000, maxDelayMs: 86_400_001 } } }))).toBe(
      'pixhook: `retry.backoff.maxDelayMs` must be an integer from 0 to 86400000 (24 h), got 86400001',
    );
  });

  it.each<[string, object, string]>([
    [
      'background.attempts',
      { attempts: 3 },
      'pixhook: `background.attempts` was renamed: use `retry: { attempts }` (a top-level option of createProcessing / createReceiver)',
    ],
    [
      'background.backoffMs',
      { backoffMs: 10 },
      'pixhook: `background.backoffMs` was renamed: use `retry: { backoff: { delayMs } }` (a top-level option of createProcessing / createReceiver)',
    ],
    [
      'background.backoffFactor',
      { backoffFactor: 3 },
      'pixhook: `background.backoffFactor` was renamed: use `retry: { backoff: { factor } }` (a top-level option of createProcessing / createReceiver)',
    ],
  ])('the old %s is refused, naming its replacement (never ignored)', (_what, background, message) => {
    expect(refusal(() => createProcessing({ mode: 'background', background } as ProcessingOptions))).toBe(message);
    expect(refusal(() => createReceiver({ secret, mode: 'background', background } as never))).toBe(message);
  });

  it('refuses `retry` outside background mode, where nothing would read it', () => {
    expect(refusal(() => createProcessing({ retry: { attempts: 2 } }))).toMatch(
      /^pixhook: `retry` applies to mode "background" only, got mode "inline"/,
    );
    expect(refusal(() => createProcessing({ mode: 'durable', queue, retry: { attempts: 2 } }))).toMatch(
      /^pixhook: `retry` applies to mode "background" only, got mode "durable" \(a durable worker retries: startWorker\(\{ retry \}\)\)/,
    );
  });

  it.each<[string, object, string]>([
    ['maxBodyBytes 0', { maxBodyBytes: 0 }, 'pixhook: `maxBodyBytes` must be an integer from 1 to 1073741824 (1 GiB), got 0'],
    [
      'retryAfterSeconds 1.5 (Retry-After carries whole seconds)',
      { retryAfterSeconds: 1.5 },
      'pixhook: `retryAfterSeconds` must be an integer from 1 to 86400 (24 h), got 1.5',
    ],
    [
      'toleranceSeconds 1e12',
      { signature: { scheme: 'timestamped', header: 'vexy-signature', toleranceSeconds: 1e12 } },
      'pixhook: `signature.toleranceSeconds` must be an integer from 1 to 86400 (24 h), got 1000000000000',
    ],
  ])('receiver: %s is refused', (_what, options, message) => {
    expect(refusal(() => createReceiver({ secret, ...options }))).toBe(message);
  });

  it('the bounds themselves are accepted', () => {
    expect(() =>
      createProcessing({
        mode: 'background',
        handlerTimeoutMs: 86_400_000,
        dedupeTtlMs: 31_622_400_000,
        retry: { attempts: 100, backoff: { delayMs: 0, factor: 10 } },
      }),
    ).not.toThrow();
    expect(() => createProcessing({ mode: 'durable', queue, handlerTimeoutMs: 1, storeTimeoutMs: 1, claimTtlMs: 1 })).not.toThrow();
  });

  it('drain waits for a run even when the longest run passes a timer’s range (it returned false at once)', async () => {
    // 100 attempts × 24 h: the default drain bound is past 2^31 - 1 ms, which setTimeout fires after 1 ms.
    const processing = createProcessing({
      mode: 'background',
      handlerTimeoutMs: 86_400_000,
      retry: { attempts: 100, backoff: { delayMs: 0 } },
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let handled = 0;
    processing.on('transaction_paid', async () => {
      await gate;
      handled++;
    });
    const receiver = createReceiver({ secret, processing });
    const body = bytesOf(variantAPaid);
    expect((await receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body })).status).toBe(200);
    const drained = processing.drain();
    // Released only after drain has had many timer turns to give up on, had its timer overflowed.
    setTimeout(release, 50);
    expect(await drained).toBe(true);
    expect(handled).toBe(1);
  });
});

describe('client, reconciler, emulator and deliver options are bounded', () => {
  const client = { apiKey: 'k', apiSecret: 's', baseUrl: 'http://127.0.0.1:9' };

  it.each<[string, object, string]>([
    ['retry.attempts 1e9', { retry: { attempts: 1e9 } }, 'pixhook: `retry.attempts` must be an integer from 1 to 100, got 1000000000'],
    [
      'retry.backoff.delayMs 1e12',
      { retry: { backoff: { delayMs: 1e12 } } },
      'pixhook: `retry.backoff.delayMs` must be an integer from 0 to 86400000 (24 h), got 1000000000000',
    ],
    [
      'retry.backoff.maxDelayMs -1',
      { retry: { backoff: { maxDelayMs: -1 } } },
      'pixhook: `retry.backoff.maxDelayMs` must be an integer from 0 to 86400000 (24 h), got -1',
    ],
    ['the old maxRetries', { maxRetries: 3 }, 'pixhook: `maxRetries` was renamed: use `retry: { attempts }` (attempts = maxRetries + 1)'],
    ['the old retryBaseDelayMs', { retryBaseDelayMs: 1 }, 'pixhook: `retryBaseDelayMs` was renamed: use `retry: { backoff: { delayMs } }`'],
    ['the old maxRetryDelayMs', { maxRetryDelayMs: 1 }, 'pixhook: `maxRetryDelayMs` was renamed: use `retry: { backoff: { maxDelayMs } }`'],
    ['renewBeforeMs NaN', { renewBeforeMs: Number.NaN }, 'pixhook: `renewBeforeMs` must be an integer from 0 to 86400000 (24 h), got NaN'],
    ['requestTimeoutMs 0', { requestTimeoutMs: 0 }, 'pixhook: `requestTimeoutMs` must be an integer from 1 to 86400000 (24 h), got 0'],
    [
      'minChargeAmountInCents 0.5',
      { minChargeAmountInCents: 0.5 },
      'pixhook: `minChargeAmountInCents` must be an integer from 1 to 9007199254740991, got 0.5',
    ],
    ['variant "c" (it ran Variant B rules in silence)', { variant: 'c' }, 'pixhook: `variant` must be "a" or "b", got the string "c"'],
    ['transferBody "x"', { transferBody: 'x' }, 'pixhook: `transferBody` must be "both", "a" or "b", got the string "x"'],
  ])('createClient: %s is refused', (_what, options, message) => {
    expect(refusal(() => createClient({ ...client, ...options } as never))).toBe(message);
  });

  const reconcilerBase = { client: { getTransaction: async () => ({}) as never }, processing: createProcessing() };
  it.each<[string, object, string]>([
    ['everyMs 1e12', { everyMs: 1e12 }, 'pixhook: `everyMs` must be an integer from 1 to 86400000 (24 h), got 1000000000000'],
    ['leaseMs 0', { leaseMs: 0 }, 'pixhook: `leaseMs` must be an integer from 1 to 86400000 (24 h), got 0'],
    ['batch 1.5', { batch: 1.5 }, 'pixhook: `batch` must be an integer from 1 to 10000, got 1.5'],
    ['concurrency 1e6', { concurrency: 1e6 }, 'pixhook: `concurrency` must be an integer from 1 to 100, got 1000000'],
    [
      'retry.backoff [1e12]',
      { retry: { backoff: [1e12] } },
      'pixhook: `retry.backoff[0]` must be an integer from 1 to 86400000 (24 h), got 1000000000000',
    ],
    [
      'the old backoffMs',
      { backoffMs: [60_000] },
      'pixhook: `backoffMs` was renamed: use `retry: { backoff: [ms, …] }` (the check schedule)',
    ],
    ['querySharePerMinute 2', { querySharePerMinute: 2 }, 'pixhook: `querySharePerMinute` must be a number from 0.01 to 1, got 2'],
    ['maxAgeMs 1e15', { maxAgeMs: 1e15 }, 'pixhook: `maxAgeMs` must be an integer from 1 to 31622400000 (366 days), got 1000000000000000'],
    [
      'minAgeMs past maxAgeMs (nothing would ever be read)',
      { minAgeMs: 60_000, maxAgeMs: 30_000 },
      'pixhook: `minAgeMs` must be less than `maxAgeMs` (30000), got 60000: no charge would ever be read.',
    ],
  ])('createReconciler: %s is refused', (_what, options, message) => {
    expect(refusal(() => createReconciler({ ...reconcilerBase, ...options }))).toBe(message);
  });

  it.each<[string, object, string]>([
    [
      'retry.backoff.delayMs 1e12',
      { retry: { backoff: { delayMs: 1e12 } } },
      'pixhook: `retry.backoff.delayMs` must be an integer from 0 to 86400000 (24 h), got 1000000000000',
    ],
    ['retry.attempts 0', { retry: { attempts: 0 } }, 'pixhook: `retry.attempts` must be an integer from 1 to 100, got 0'],
    [
      'the old backoffMs',
      { backoffMs: 5 },
      'pixhook: `backoffMs` was renamed: use `retry: { backoff: { delayMs } }` (delivery attempts: `retry: { attempts }`, default 5)',
    ],
    [
      'deliveryTimeoutMs 1e12',
      { deliveryTimeoutMs: 1e12 },
      'pixhook: `deliveryTimeoutMs` must be an integer from 1 to 86400000 (24 h), got 1000000000000',
    ],
    ['transferStepMs -5', { transferStepMs: -5 }, 'pixhook: `transferStepMs` must be an integer from 0 to 86400000 (24 h), got -5'],
    ['tokenTtlMs 0', { tokenTtlMs: 0 }, 'pixhook: `tokenTtlMs` must be an integer from 1 to 31622400000 (366 days), got 0'],
    ['port 70000', { port: 70_000 }, 'pixhook: `port` must be an integer from 0 to 65535, got 70000'],
    ['a negative rate limit', { rateLimits: { auth: -1 } }, 'pixhook: `rateLimits.auth` must be an integer from 0, or Infinity, got -1'],
  ])('emulator: %s is refused', async (_what, options, message) => {
    expect(refusal(() => resolveEmulatorOptions(options))).toBe(message);
    expect(await refusalAsync(async () => (await startEmulator(options)).close())).toBe(message);
  });

  it.each<[string, object, string]>([
    ['retry.attempts 1e9', { retry: { attempts: 1e9 } }, 'pixhook: `retry.attempts` must be an integer from 1 to 100, got 1000000000'],
    [
      'retry.backoff.delayMs 1e12',
      { retry: { backoff: { delayMs: 1e12 } } },
      'pixhook: `retry.backoff.delayMs` must be an integer from 0 to 86400000 (24 h), got 1000000000000',
    ],
    ['timeoutMs 0', { timeoutMs: 0 }, 'pixhook: `timeoutMs` must be an integer from 1 to 86400000 (24 h), got 0'],
    [
      'retry.backoff.factor 100',
      { retry: { backoff: { factor: 100 } } },
      'pixhook: `retry.backoff.factor` must be a number from 1 to 10, got 100',
    ],
  ])('pixhook/testing deliver: %s is refused', async (_what, options, message) => {
    const fetch = () => Promise.reject(new Error('never sent'));
    expect(await refusalAsync(() => deliver({ url: 'http://127.0.0.1:9/', body: '{}', secret, fetch, ...options }))).toBe(message);
  });
});
