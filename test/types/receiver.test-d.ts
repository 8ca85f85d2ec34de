import { describe, expectTypeOf, it } from 'vitest';
import {
  createReceiver,
  type PixEvent,
  type PixEventOf,
  type ReceiveResult,
  type Receiver,
  type Transaction,
  type Transfer,
  type UnknownEvent,
} from '../../src/index.js';
import { createExpressMiddleware } from '../../adapters/express/index.js';

const receiver = createReceiver({ secret: 's' });

describe('event types narrow by name', () => {
  it('gives transaction handlers a transaction and no transfer', () => {
    receiver.on('transaction_paid', (event) => {
      expectTypeOf(event.name).toEqualTypeOf<'transaction_paid'>();
      expectTypeOf(event.transaction).toEqualTypeOf<Transaction>();
      expectTypeOf(event.transaction.amountInCents).toEqualTypeOf<number>();
      // @ts-expect-error a transaction event has no transfer
      void event.transfer;
    });
  });

  it('gives transfer handlers a transfer and no transaction', () => {
    receiver.on('transfer_completed', (event) => {
      expectTypeOf(event.transfer).toEqualTypeOf<Transfer>();
      // @ts-expect-error a transfer event has no transaction
      void event.transaction;
    });
  });

  it('gives a list of names the union of their events', () => {
    receiver.on(['transaction_paid', 'transfer_canceled'], (event) => {
      expectTypeOf(event).toEqualTypeOf<PixEventOf<'transaction_paid' | 'transfer_canceled'>>();
      if (event.name === 'transfer_canceled') expectTypeOf(event.transfer.id).toBeString();
      else expectTypeOf(event.transaction.id).toBeString();
    });
  });

  it('narrows onAny events by name and by kind', () => {
    receiver.onAny((event) => {
      expectTypeOf(event).toEqualTypeOf<PixEvent>();
      if (event.kind === 'transfer') expectTypeOf(event.transfer.status).toBeString();
      if (event.name === 'transaction_refunded') expectTypeOf(event.transaction.refund?.amountInCents).toEqualTypeOf<number | undefined>();
    });
  });

  it('refuses unknown event names and wrong fields', () => {
    // @ts-expect-error not an event name
    receiver.on('transaction_piad', () => {});
    // @ts-expect-error not an event name inside a list
    receiver.on(['transaction_paid', 'payment_done'], () => {});
    receiver.on('transaction_paid', (event) => {
      // @ts-expect-error amounts are amountInCents, never amount
      void event.transaction.amount;
      // @ts-expect-error the name is a literal, so comparing with another name is an error
      if (event.name === 'transfer_completed') return;
    });
  });

  it('types unknown events apart from typed ones', () => {
    receiver.onUnknown((event) => {
      expectTypeOf(event).toEqualTypeOf<UnknownEvent>();
      expectTypeOf(event.name).toBeString();
      // @ts-expect-error unknown events carry no typed resource
      void event.transaction;
    });
  });

  it('types options, results and the Express middleware', () => {
    // @ts-expect-error mode is one of three names
    createReceiver({ secret: 's', mode: 'fast' });
    // @ts-expect-error a secret is required
    createReceiver({});
    expectTypeOf(receiver.receive).returns.resolves.toEqualTypeOf<ReceiveResult>();
    expectTypeOf(createExpressMiddleware(receiver)).toBeFunction();
  });
});

describe('the public receiver is only what a merchant calls (issue 21)', () => {
  it("has its thirteen members (issue 22 added onViolation, release and checkDisputes; issue 28 close; issue 37 health), and the adapters' internals are not on it", () => {
    expectTypeOf<keyof Receiver>().toEqualTypeOf<
      | 'on'
      | 'onAny'
      | 'onUnknown'
      | 'onError'
      | 'onInvalid'
      | 'onViolation'
      | 'health'
      | 'release'
      | 'checkDisputes'
      | 'receive'
      | 'drain'
      | 'close'
      | 'metrics'
    >();
    expectTypeOf(receiver.close).parameters.toEqualTypeOf<[options?: { timeoutMs?: number }]>();
    expectTypeOf(receiver.close).returns.resolves.toEqualTypeOf<boolean>();
    // @ts-expect-error the adapters' fast path is in src/adapter-kit
    void receiver.handle;
    // @ts-expect-error adapters answer their own body failures through src/adapter-kit
    void receiver.reject;
    // @ts-expect-error the body limit is an option the merchant set
    void receiver.maxBodyBytes;
    // @ts-expect-error the keep-alive check is the kit's
    void receiver.hasWaitUntil;
    // @ts-expect-error the header is the `signature` option the merchant set
    void receiver.signatureHeader;
    // @ts-expect-error create the processing with createProcessing and pass it to the receiver and the worker
    void receiver.processing;
    // @ts-expect-error the mode is the option the merchant passed
    void receiver.mode;
  });

  it("no longer exports the adapters' helpers from the root", async () => {
    const root = await import('../../src/index.js');
    // @ts-expect-error moved to src/adapter-kit
    void root.assertKeptAlive;
    // @ts-expect-error use eventKey
    void root.defaultDedupeKey;
    // @ts-expect-error the verifiers read the prefix themselves
    void root.signaturePrefix;
    // @ts-expect-error the answer carries its status
    void root.reasonStatus;
    // @ts-expect-error ReasonCode is the type to use
    void root.reasonCodes;
    // @ts-expect-error internal to the core
    void root.isBodyFailureReason;
    // @ts-expect-error read error.message
    void root.messageOf;
  });
});
