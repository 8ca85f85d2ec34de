import { describe, expectTypeOf, it } from 'vitest';
import {
  createProcessing,
  createReceiver,
  PixhookError,
  type AcceptResult,
  type DedupeStore,
  type EventSource,
  type HandlerContext,
  type PixhookErrorCode,
  type Processing,
  type QueuedRun,
  type Telemetry,
} from '../../src/index.js';
import { postgresInbox } from '../../src/postgres/index.js';
import { openTelemetry } from '../../src/otel/index.js';

describe('processing and its public types', () => {
  it('needs no secret, and its handlers are typed like the receiver’s', () => {
    const processing = createProcessing({ mode: 'background' });
    expectTypeOf(processing).toEqualTypeOf<Processing>();
    processing.on('transfer_completed', (event, context) => {
      expectTypeOf(event.transfer.amountInCents).toEqualTypeOf<number>();
      expectTypeOf(context.signal).toEqualTypeOf<AbortSignal>();
      expectTypeOf(context.source).toEqualTypeOf<EventSource>();
      expectTypeOf(context.markDuplicate).toEqualTypeOf<() => void>();
      // @ts-expect-error a transfer event has no transaction
      void event.transaction;
    });
    expectTypeOf(processing.accept).returns.resolves.toEqualTypeOf<AcceptResult>();
    // @ts-expect-error durable mode needs a queue object, not a string
    createProcessing({ mode: 'durable', queue: 'redis://' });
  });

  it('orderWaitMs is a number on createProcessing and createReceiver, and a processing option beside a shared processing', () => {
    createProcessing({ orderWaitMs: 2_000 });
    createReceiver({ secret: 's', orderWaitMs: 2_000 });
    // @ts-expect-error milliseconds, not a duration string
    createProcessing({ orderWaitMs: '2s' });
    // @ts-expect-error it belongs to the shared processing
    createReceiver({ secret: 's', processing: createProcessing(), orderWaitMs: 2_000 });
    expectTypeOf<PixhookErrorCode>().extract<'resource_busy'>().toEqualTypeOf<'resource_busy'>();
  });

  it('a queued run carries its attempt and whether it is the last', () => {
    expectTypeOf<Parameters<Processing['runQueued']>[1]>().toEqualTypeOf<QueuedRun>();
    expectTypeOf<keyof QueuedRun>().toEqualTypeOf<'attempt' | 'final'>();
    const run: QueuedRun = { attempt: 1, final: false };
    void run;
  });

  it('a receiver can share a processing, and then takes no processing options', () => {
    const processing = createProcessing();
    const receiver = createReceiver({ secret: 's', processing });
    // @ts-expect-error the processing is the one the merchant created; the receiver does not expose it
    void receiver.processing;
    // @ts-expect-error processing options go to the shared processing, not beside it
    createReceiver({ secret: 's', processing, mode: 'inline' });
  });

  it('stores are owner-checked in their signatures', () => {
    const store: DedupeStore = {
      claim: () => 'claimed',
      complete: () => true,
      release: () => {},
      extend: () => true,
    };
    // @ts-expect-error claim takes the run's owner token before the TTL
    void store.claim('key', 1000);
    void store.claim('key', 'owner', 1000);
  });

  it('one error root with a typed code', () => {
    expectTypeOf(new PixhookError('timeout', 'x').code).toEqualTypeOf<PixhookErrorCode>();
    // @ts-expect-error codes are a closed list
    new PixhookError('oops', 'x');
  });

  it('telemetry and the transactional context', () => {
    expectTypeOf(openTelemetry()).toEqualTypeOf<Telemetry>();
    const inbox = postgresInbox({ pool: { query: async () => ({ rows: [] }) } as never });
    createProcessing().on(
      'transaction_paid',
      inbox.transactional(async (event, context) => {
        expectTypeOf(event.transaction.id).toBeString();
        expectTypeOf(context).toMatchTypeOf<HandlerContext>();
        expectTypeOf(context.tx.query).toBeFunction();
      }),
    );
  });
});
