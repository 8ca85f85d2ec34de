// Every public factory refuses an option key it does not read, naming it (and the known key it is closest
// to), and accepts each of its documented keys; a key whose value is undefined is not given.
import { describe, expect, it } from 'vitest';
import { createFetchHandler } from '../../adapters/web/index.js';
import { createAppRouteHandler, createPagesApiHandler } from '../../adapters/next/index.js';
import { createApiPixClient, createApiPixReceiver } from '../../src/api-pix/index.js';
import { createClient } from '../../src/client/index.js';
import { createConsole, createWatchdog } from '../../src/console/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import {
  createProcessing,
  createReceiver,
  memoryDedupeStore,
  memoryJournal,
  memoryPaymentBook,
  memoryQuarantine,
  PixhookConfigError,
} from '../../src/index.js';
import { openTelemetry } from '../../src/otel/index.js';
import { postgresCursorStore, postgresInbox, postgresJournal, postgresPaymentBook, postgresWatchStore } from '../../src/postgres/index.js';
import { createPspReceiver } from '../../src/psp/index.js';
import { createListingReconciler, createReconciler, memoryWatchStore } from '../../src/reconcile/index.js';
import {
  createDurableQueue,
  redisCursorStore,
  redisDedupeStore,
  redisJournal,
  redisPaymentBook,
  redisQuarantine,
  redisWatchStore,
  startWorker,
} from '../../src/redis/index.js';

type Make = (options: Record<string, unknown>) => unknown;

const secret = 'whsec_unknown_options_test';
const processingKeys = [
  'mode',
  'store',
  'dedupeKey',
  'dedupeTtlMs',
  'claimTtlMs',
  'deadlineMs',
  'handlerTimeoutMs',
  'storeTimeoutMs',
  'orderWaitMs',
  'background',
  'retry',
  'queue',
  'waitUntil',
  'book',
  'policy',
  'confirm',
  'disputeAlertMs',
  'journal',
  'logger',
  'telemetry',
];
const receiver = () => createReceiver({ secret });
const apiPixAuth = { urlSecret: { secret: 'a-url-secret-of-32-characters-ok' } };

/** Each factory: how it is called with `options` added to what it needs, and its documented keys. */
const factories: { name: string; make: Make; keys: readonly string[] }[] = [
  {
    name: 'createReceiver',
    make: (o) => createReceiver({ secret, ...o } as never),
    keys: ['secret', 'signature', 'maxBodyBytes', 'retryAfterSeconds', 'onInvalid', 'quarantine', 'processing', ...processingKeys],
  },
  { name: 'createProcessing', make: (o) => createProcessing(o as never), keys: processingKeys },
  {
    name: 'createPspReceiver',
    make: (o) => createPspReceiver({ psp: 'asaas', token: 'asaas-token', ...o } as never),
    keys: [
      'psp',
      'token',
      'apiKey',
      'apiBaseUrl',
      'maxBodyBytes',
      'retryAfterSeconds',
      'fetchTimeoutMs',
      'onInvalid',
      'quarantine',
      'processing',
      ...processingKeys,
    ],
  },
  {
    name: 'createApiPixReceiver',
    make: (o) => createApiPixReceiver({ auth: apiPixAuth, ...o } as never),
    keys: [
      'auth',
      'keys',
      'maxBodyBytes',
      'retryAfterSeconds',
      'onInvalid',
      'quarantine',
      'processing',
      ...processingKeys.filter((k) => k !== 'telemetry'),
    ],
  },
  { name: 'memoryPaymentBook', make: (o) => memoryPaymentBook(o as never), keys: ['max', 'maxTimeline', 'now'] },
  { name: 'memoryJournal', make: (o) => memoryJournal(o as never), keys: ['max', 'maxUnverified'] },
  { name: 'memoryDedupeStore', make: (o) => memoryDedupeStore(o as never), keys: ['max'] },
  { name: 'memoryQuarantine', make: (o) => memoryQuarantine(o as never), keys: ['max'] },
  { name: 'memoryWatchStore', make: (o) => memoryWatchStore(o as never), keys: ['now'] },
  { name: 'openTelemetry', make: (o) => openTelemetry(o as never), keys: ['tracer', 'meter'] },
  {
    name: 'createClient',
    make: (o) => createClient({ apiKey: 'k', apiSecret: 's', baseUrl: 'http://127.0.0.1:9', ...o } as never),
    keys: [
      'apiKey',
      'apiSecret',
      'webhookSecret',
      'baseUrl',
      'variant',
      'minChargeAmountInCents',
      'transferBody',
      'retry',
      'renewBeforeMs',
      'requestTimeoutMs',
      'fetch',
      'now',
      'sleep',
      'watch',
      'watchRetry',
      'watchTimeoutMs',
      'onError',
      'logger',
      'generateIdempotencyKey',
      'readBudget',
      'book',
    ],
  },
  {
    name: 'createWatchdog',
    make: (o) => createWatchdog(o as never),
    keys: [
      'journal',
      'book',
      'reconciler',
      'alertUrl',
      'onAlert',
      'logger',
      'silentAfterMinutes',
      'activeHours',
      'maxSignatureFailuresPerMinute',
      'heldLongerThanMinutes',
      'disputeAlertAfterDays',
      'intervalMs',
      'now',
    ],
  },
  {
    name: 'createConsole',
    make: (o) => createConsole(o as never),
    keys: ['journal', 'book', 'quarantine', 'queue', 'reconciler', 'receiver', 'token', 'basePath', 'sandbox', 'watchdog', 'logger'],
  },
  { name: 'createApiPixClient', make: (o) => createApiPixClient(o as never), keys: [] },
  {
    name: 'createReconciler',
    make: (o) => createReconciler({ client: { getTransaction: () => undefined }, processing: createProcessing(), ...o } as never),
    keys: [],
  },
  { name: 'createListingReconciler', make: (o) => createListingReconciler(o as never), keys: [] },
  { name: 'redisDedupeStore', make: (o) => redisDedupeStore(o as never), keys: [] },
  { name: 'redisCursorStore', make: (o) => redisCursorStore(o as never), keys: [] },
  { name: 'redisPaymentBook', make: (o) => redisPaymentBook(o as never), keys: [] },
  { name: 'redisJournal', make: (o) => redisJournal(o as never), keys: [] },
  { name: 'redisQuarantine', make: (o) => redisQuarantine(o as never), keys: [] },
  { name: 'redisWatchStore', make: (o) => redisWatchStore(o as never), keys: [] },
  { name: 'postgresPaymentBook', make: (o) => postgresPaymentBook(o as never), keys: [] },
  { name: 'postgresInbox', make: (o) => postgresInbox(o as never), keys: [] },
  { name: 'postgresWatchStore', make: (o) => postgresWatchStore(o as never), keys: [] },
  { name: 'postgresJournal', make: (o) => postgresJournal(o as never), keys: [] },
  { name: 'postgresCursorStore', make: (o) => postgresCursorStore(o as never), keys: [] },
  { name: 'createFetchHandler', make: (o) => createFetchHandler(receiver(), o as never), keys: ['requireWaitUntil'] },
  { name: 'createAppRouteHandler', make: (o) => createAppRouteHandler(receiver(), o as never), keys: ['after', 'clientAddress'] },
  { name: 'createPagesApiHandler', make: (o) => createPagesApiHandler(receiver(), o as never), keys: ['waitUntil'] },
];

/** What the call threw (or rejected with), or undefined. */
async function thrown(make: () => unknown): Promise<unknown> {
  try {
    const made = make();
    if (made instanceof Promise) await made;
    const closing = made as { close?: () => unknown; stop?: () => unknown } | undefined;
    await closing?.stop?.();
    return undefined;
  } catch (error) {
    return error;
  }
}

const notAnOption = /is not an option of/;

describe('an option key a factory does not read is refused at construction, named', () => {
  for (const { name, make, keys } of factories) {
    it(`${name}: refuses \`bogusKey\`, accepts ${keys.length > 0 ? 'each documented key' : 'its keys (checked by the compiler)'}`, async () => {
      const error = await thrown(() => make({ bogusKey: 1 }));
      expect(error).toBeInstanceOf(PixhookConfigError);
      expect((error as Error).message).toBe(`pixhook: \`bogusKey\` is not an option of ${name}`);
      // A key given as undefined is not given (`...(x && { a })`, `{ a: env.A }`): never refused for its name.
      expect(String(await thrown(() => make({ bogusKey: undefined })))).not.toMatch(notAnOption);
      for (const key of keys) {
        // Whatever the value's own check says (a number fits hardly any), the key itself is known.
        const outcome = await thrown(() => make({ [key]: -1.5 }));
        expect({ key, message: String(outcome) }).not.toMatchObject({ message: expect.stringMatching(notAnOption) });
      }
    });
  }

  it('the async factories reject before connecting, naming the key', async () => {
    const calls: [string, () => Promise<unknown>][] = [
      ['createDurableQueue', () => createDurableQueue({ connection: { host: '127.0.0.1', port: 9 }, queue: 'x' } as never)],
      [
        'startWorker',
        () => startWorker({ connection: { host: '127.0.0.1', port: 9 }, processing: createProcessing(), name: 'x' } as never),
      ],
      ['startEmulator', () => startEmulator({ webhookSecrets: 'x' } as never)],
      ['startEmulator', () => startEmulator({ profile: 'asaas', bogusKey: 1 } as never)],
      ['startEmulator', () => startEmulator({ profile: 'api-pix', bogusKey: 1 } as never)],
    ];
    const messages = [];
    for (const [, call] of calls) messages.push(String(await call().catch((error: unknown) => error)));
    expect(messages).toEqual([
      'PixhookConfigError: pixhook: `queue` is not an option of createDurableQueue; did you mean `queueName`?',
      'PixhookConfigError: pixhook: `name` is not an option of startWorker; did you mean `queueName`?',
      'PixhookConfigError: pixhook: `webhookSecrets` is not an option of startEmulator; did you mean `webhookSecret`?',
      'PixhookConfigError: pixhook: `bogusKey` is not an option of startEmulator',
      'PixhookConfigError: pixhook: `bogusKey` is not an option of startEmulator',
    ]);
  });

  it('suggests the known key a typo is close to, nested keys with their path', () => {
    const message = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        return (error as Error).message;
      }
      return 'accepted';
    };
    expect(message(() => createReceiver({ secret, tolerance: 300 } as never))).toBe(
      'pixhook: `tolerance` is not an option of createReceiver',
    );
    expect(message(() => createReceiver({ secret, signature: { scheme: 'timestamped', header: 'h', tolerance: 300 } } as never))).toBe(
      'pixhook: `signature.tolerance` is not an option of createReceiver; did you mean `signature.toleranceSeconds`?',
    );
    expect(message(() => createReceiver({ secret, maxBodyByte: 10 } as never))).toBe(
      'pixhook: `maxBodyByte` is not an option of createReceiver; did you mean `maxBodyBytes`?',
    );
    expect(message(() => createReceiver({ secret, Mode: 'inline' } as never))).toBe(
      'pixhook: `Mode` is not an option of createReceiver; did you mean `mode`?',
    );
    expect(message(() => createPspReceiver({ psp: 'asaas', token: 't', tokn: 'x' } as never))).toBe(
      'pixhook: `tokn` is not an option of createPspReceiver; did you mean `token`?',
    );
    expect(message(() => createProcessing({ dedupeTTLMs: 1000 } as never))).toBe(
      'pixhook: `dedupeTTLMs` is not an option of createProcessing; did you mean `dedupeTtlMs`?',
    );
    expect(message(() => createApiPixReceiver({ auth: { urlSecret: { ...apiPixAuth.urlSecret, params: 'k' } } } as never))).toBe(
      'pixhook: `auth.urlSecret.params` is not an option of createApiPixReceiver; did you mean `auth.urlSecret.param`?',
    );
    // Another PSP's option keeps its own message; the same object handed to createProcessing is checked again.
    expect(message(() => createPspReceiver({ psp: 'asaas', token: 't', publicKeys: ['k'] } as never))).toMatch(/it is woovi's/);
    const options = { secret };
    createReceiver(options);
    expect(message(() => createProcessing(options as never))).toBe('pixhook: `secret` is not an option of createProcessing');
  });
});
