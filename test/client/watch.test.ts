import { afterEach, describe, expect, it } from 'vitest';
import { createClient, defaultWatchRetryDelaysMs, type ClientOptions, type WatchFailure } from '../../src/client/index.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { PixhookConfigError, PixhookTimeoutError, type AcceptResult } from '../../src/index.js';
import { createReconciler, memoryWatchStore, type WatchStore } from '../../src/reconcile/index.js';
import { customer, fakeClock } from './fake-clock.js';

// `createClient({ watch })`: the charge is created whatever the watcher does; a failed watch is shown on
// the result, retried in the background on `watchRetry`, and reported to onError and the logger.

let emulator: Emulator | undefined;
afterEach(() => emulator?.close());

/** Like ioredis on a cluster when a script's keys span slots. */
const crossSlot = () => Object.assign(new Error("CROSSSLOT Keys in request don't hash to the same slot"), { name: 'ReplyError' });

/** A watch store that fails `failures` times (Infinity: always), then records the charge. */
function flakyWatcher(failures: number) {
  const calls: string[] = [];
  const watched: string[] = [];
  let resolveWatched: (id: string) => void = () => {};
  const done = new Promise<string>((resolve) => (resolveWatched = resolve));
  return {
    calls,
    watched,
    done,
    watcher: {
      async watch(chargeId: string) {
        calls.push(chargeId);
        if (calls.length <= failures) throw crossSlot();
        watched.push(chargeId);
        resolveWatched(chargeId);
      },
    },
  };
}

function recordingLogger() {
  const lines: { level: string; fields: Record<string, unknown>; message?: string }[] = [];
  const at = (level: string) => (fields: object, message?: string) =>
    void lines.push({ level, fields: fields as Record<string, unknown>, message });
  return { lines, logger: { info: at('info'), warn: at('warn'), error: at('error') } };
}

async function setup(options: Partial<ClientOptions>) {
  const clock = fakeClock();
  emulator = await startEmulator({ now: clock.now });
  const failures: WatchFailure[] = [];
  let reported: (failure: WatchFailure) => void = () => {};
  const onErrorCalled = new Promise<WatchFailure>((resolve) => (reported = resolve));
  const { lines, logger } = recordingLogger();
  const client = createClient({
    ...emulator.credentials,
    baseUrl: emulator.url,
    now: clock.now,
    sleep: clock.sleep,
    logger,
    onError: (failure) => {
      failures.push(failure);
      reported(failure);
    },
    ...options,
  });
  return { clock, client, failures, onErrorCalled, lines };
}

describe('createClient({ watch })', () => {
  it('a watch that succeeds: result.watch is { ok: true, attempts: 1 }; without watch the result has no watch field', async () => {
    const { watcher, watched } = flakyWatcher(0);
    const { client, lines } = await setup({ watch: watcher });
    const charge = await client.createCharge({ amountInCents: 100, customer });
    expect(charge.watch).toEqual({ ok: true, attempts: 1 });
    expect(watched).toEqual([charge.id]);
    expect(lines).toEqual([]);
    const plain = createClient({ ...emulator!.credentials, baseUrl: emulator!.url });
    expect('watch' in (await plain.createCharge({ amountInCents: 100, customer }))).toBe(false);
  });

  it('a store that fails twice (CROSSSLOT) then works: the charge is created, the result says so, the background retry watches it', async () => {
    const { watcher, calls, watched, done } = flakyWatcher(2);
    const { client, clock, failures, lines } = await setup({ watch: watcher });
    const charge = await client.createCharge({ amountInCents: 100, customer });
    expect(charge.status).toBe('pending');
    expect(charge.watch).toMatchObject({ ok: false, retrying: true, attempts: 1, error: { message: expect.stringMatching(/^CROSSSLOT/) } });
    expect(await done).toBe(charge.id);
    expect(calls).toEqual([charge.id, charge.id, charge.id]);
    expect(watched).toEqual([charge.id]);
    // The documented schedule: 1 s, then 5 s.
    expect(clock.sleeps).toEqual([1_000, 5_000]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(failures).toEqual([]);
    expect(lines.map((l) => [l.level, l.fields['attempts']])).toEqual([
      ['warn', 1],
      ['warn', 2],
      ['info', 3],
    ]);
    expect(lines[0]?.fields).toMatchObject({ chargeId: charge.id, error: expect.stringMatching(/CROSSSLOT/) });
  });

  it('a store that always fails: five attempts over the documented schedule, then onError and logger.error, once', async () => {
    const { watcher, calls } = flakyWatcher(Infinity);
    const { client, clock, failures, onErrorCalled, lines } = await setup({ watch: watcher });
    const charge = await client.createCharge({ amountInCents: 100, customer });
    expect(charge.watch).toMatchObject({ ok: false, retrying: true, attempts: 1 });
    const failure = await onErrorCalled;
    expect(failure).toMatchObject({
      operation: 'watch',
      chargeId: charge.id,
      attempts: 5,
      error: { message: expect.stringMatching(/^CROSSSLOT/) },
    });
    expect(failures).toHaveLength(1);
    expect(calls).toHaveLength(5);
    expect(clock.sleeps).toEqual([...defaultWatchRetryDelaysMs]);
    expect(defaultWatchRetryDelaysMs).toEqual([1_000, 5_000, 30_000, 120_000]);
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fields).toMatchObject({ chargeId: charge.id, attempts: 5 });
  });

  it('with a reconciler as the watcher: its store failing is seen (watch resolves { ok: false }) and retried until the store works', async () => {
    const clock = fakeClock();
    emulator = await startEmulator({ now: clock.now });
    const inner = memoryWatchStore({ now: clock.now });
    let failing = 2;
    const store: WatchStore = { ...inner, watch: async (id, at) => (failing-- > 0 ? Promise.reject(crossSlot()) : inner.watch(id, at)) };
    const processing = { accept: async (): Promise<AcceptResult> => ({}) as AcceptResult };
    const reader = createClient({ ...emulator.credentials, baseUrl: emulator.url, now: clock.now });
    const reconciler = createReconciler({ client: reader, processing, watchStore: store, now: clock.now });
    let watchedAgain: () => void = () => {};
    const retried = new Promise<void>((resolve) => (watchedAgain = resolve));
    const logger = { info: () => watchedAgain(), warn() {}, error() {} };
    const client = createClient({
      ...emulator.credentials,
      baseUrl: emulator.url,
      now: clock.now,
      sleep: clock.sleep,
      watch: reconciler,
      logger,
    });
    const charge = await client.createCharge({ amountInCents: 100, customer });
    expect(charge.watch).toMatchObject({ ok: false, retrying: true, error: { message: expect.stringMatching(/^CROSSSLOT/) } });
    await retried;
    expect(await reconciler.metrics()).toMatchObject({ watched: 1 });
  });

  it('a watcher that never settles fails after watchTimeoutMs; the charge is still returned', async () => {
    const { client, onErrorCalled } = await setup({
      watch: { watch: () => new Promise(() => {}) },
      watchTimeoutMs: 20,
      watchRetry: { attempts: 1 },
    });
    const charge = await client.createCharge({ amountInCents: 100, customer });
    expect(charge.watch).toMatchObject({ ok: false, retrying: false, attempts: 1 });
    expect((charge.watch as { error: unknown }).error).toBeInstanceOf(PixhookTimeoutError);
    expect(await onErrorCalled).toMatchObject({ chargeId: charge.id, attempts: 1 });
  });

  it('watchRetry: { attempts: 1 } reports at once; a throwing or rejecting onError breaks nothing', async () => {
    for (const onError of [
      () => {
        throw new Error('boom');
      },
      () => Promise.reject(new Error('boom')),
    ]) {
      const { watcher } = flakyWatcher(Infinity);
      const { lines, logger } = recordingLogger();
      const { client } = await setup({ watch: watcher, watchRetry: { attempts: 1 }, onError, logger });
      const charge = await client.createCharge({ amountInCents: 100, customer });
      expect(charge.watch).toMatchObject({ ok: false, retrying: false, attempts: 1 });
      expect(lines.map((l) => [l.level, l.message])).toEqual([
        ['error', expect.stringMatching(/could not be watched/)],
        ['warn', 'pixhook client: onError threw'],
      ]);
      await emulator?.close();
    }
  });

  it('refuses watch options that cannot work', async () => {
    const base = { apiKey: 'k', apiSecret: 's', baseUrl: 'http://127.0.0.1:1', watch: { watch() {} } };
    expect(() => createClient({ ...base, watchRetry: { backoff: [-1] } })).toThrow(
      /`watchRetry.backoff\[0\]` must be an integer from 0 to/,
    );
    expect(() => createClient({ ...base, watchRetry: { attempts: 101 } })).toThrow(PixhookConfigError);
    expect(() => createClient({ ...base, watchRetry: 5 as never })).toThrow(/`watchRetry` must be/);
    expect(() => createClient({ ...base, watchRetryDelaysMs: [] } as never)).toThrow(
      'pixhook: `watchRetryDelaysMs` was renamed: use `watchRetry: { backoff: [ms, …] }` (`watchRetry: { attempts: 1 }` for no retry)',
    );
    expect(() => createClient({ ...base, watchTimeoutMs: 0 })).toThrow(/`watchTimeoutMs` must be/);
    expect(() => createClient({ ...base, onError: 'x' as never })).toThrow(/`onError` must be a function/);
  });
});
