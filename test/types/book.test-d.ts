import { describe, expectTypeOf, it } from 'vitest';
import { memoryPaymentBook, type MemoryPaymentBook } from '../../src/book/memory-payment-book.js';
import type {
  BookResource,
  DismissResult,
  DisputeWithAge,
  HeldEvent,
  PaymentBook,
  RecordResult,
  ReleaseClaim,
} from '../../src/book/payment-book.js';
import { checkPolicy, type PaymentPolicy, type ResolvedPolicy } from '../../src/book/payment-policy.js';
import type { ViolationReason } from '../../src/events/violation.js';
import { createProcessing, createReceiver, memoryPaymentBook as rootBook } from '../../src/index.js';
import type { PixEvent, ReleaseResult, Violation } from '../../src/index.js';

const book: PaymentBook = memoryPaymentBook({ max: 10 });
declare const event: PixEvent;

describe('the payment book contract', () => {
  it('answers every method with a promise', () => {
    expectTypeOf(book.get('c')).toEqualTypeOf<Promise<BookResource | undefined>>();
    expectTypeOf(book.expect({ id: 'c', amountInCents: 1 })).toEqualTypeOf<Promise<void>>();
    expectTypeOf(book.held()).toEqualTypeOf<Promise<HeldEvent[]>>();
    expectTypeOf(book.dismiss('h', 'note')).toEqualTypeOf<Promise<DismissResult>>();
    expectTypeOf(book.disputes({ open: true })).toEqualTypeOf<Promise<DisputeWithAge[]>>();
    expectTypeOf(book.record(event, { dedupeKey: 'k' })).toEqualTypeOf<Promise<RecordResult>>();
    expectTypeOf(book.claimRelease('h')).toEqualTypeOf<Promise<ReleaseClaim>>();
    expectTypeOf(book.finishRelease('h', true)).toEqualTypeOf<Promise<boolean>>();
    expectTypeOf(memoryPaymentBook()).toMatchTypeOf<PaymentBook>();
    expectTypeOf<MemoryPaymentBook['size']>().toEqualTypeOf<number>();
  });

  it('gives a resource its kind, status, amount, timeline and disputes', async () => {
    const resource = await book.get('c');
    // @ts-expect-error the resource may be unknown
    void resource.status;
    if (resource !== undefined) {
      expectTypeOf(resource.kind).toEqualTypeOf<'transaction' | 'transfer'>();
      expectTypeOf(resource.amountInCents).toEqualTypeOf<number>();
      expectTypeOf(resource.timeline[0]!.channel).toEqualTypeOf<'postback' | 'user' | 'reconcile' | 'replay'>();
      expectTypeOf(resource.expected?.payerDocument).toEqualTypeOf<string | undefined>();
    }
  });

  it('narrows a record result: only a hold has a held id', async () => {
    const result = await book.record(event, { dedupeKey: 'k', channel: 'user', confirmed: false });
    // @ts-expect-error an applied event has no held id
    void (result.outcome === 'apply' && result.heldId);
    if (result.outcome !== 'apply' && result.outcome !== 'duplicate') expectTypeOf(result.heldId).toBeString();
    // @ts-expect-error a duplicate (a fact the book applied already) has no held id
    void (result.outcome === 'duplicate' && result.heldId);
    expectTypeOf(result.violations[0]!.reason).toEqualTypeOf<ViolationReason>();
    // @ts-expect-error the channel is one of four
    void book.record(event, { dedupeKey: 'k', channel: 'email' });
    // @ts-expect-error the dedupe key is required
    void book.record(event, {});
  });

  it('says why a dismiss or a release was refused', async () => {
    const dismissed = await book.dismiss('h', 'n');
    if (!dismissed.ok) expectTypeOf(dismissed.reason).toEqualTypeOf<'not_found' | 'already_released' | 'dismissed'>();
    const claim = await book.claimRelease('h');
    if (claim.ok) expectTypeOf(claim.held.event).toEqualTypeOf<PixEvent>();
    // @ts-expect-error a refused claim carries no held event
    void (!claim.ok && claim.held);
    // @ts-expect-error a note is required
    void book.dismiss('h');
  });

  it('checks expectations at compile time', () => {
    void book.expect({ id: 'c', amountInCents: 1, payerDocument: '123.456.789-09', expiresAt: new Date() });
    // @ts-expect-error the amount is in cents, a number
    void book.expect({ id: 'c', amountInCents: '10.00' });
    // @ts-expect-error the id is required
    void book.expect({ amountInCents: 1 });
  });

  it('keys a policy by reason code, set to hold or flag', () => {
    const policy: PaymentPolicy = { amount_mismatch: 'flag', unknown_charge: 'hold' };
    expectTypeOf(checkPolicy(policy)).toEqualTypeOf<ResolvedPolicy>();
    // @ts-expect-error not a reason code
    void checkPolicy({ amount_mismatc: 'hold' });
    // @ts-expect-error only hold or flag
    void checkPolicy({ stale_status: 'ignore' });
    // @ts-expect-error dispute_deadline is an alert, not a policy key
    void checkPolicy({ dispute_deadline: 'hold' });
    void checkPolicy({ unknown_key: 'hold' });
    // @ts-expect-error unknown_key is hold only: a Pix to another key is never the merchant's money
    void checkPolicy({ unknown_key: 'flag' });
  });
});

describe('createReceiver({ book, policy }) and createProcessing({ book, policy }) (issue 22 wiring)', () => {
  it('takes a book and a policy keyed by reason code, and hears violations', async () => {
    const receiver = createReceiver({ secret: 's', book: rootBook(), policy: { amount_mismatch: 'flag' } });
    const processing = createProcessing({ book: rootBook(), policy: { unknown_charge: 'hold' } });
    receiver.onViolation((violation, event) => {
      expectTypeOf(violation.reason).toEqualTypeOf<ViolationReason>();
      expectTypeOf(event.violations).toEqualTypeOf<readonly Violation[] | undefined>();
    });
    processing.onViolation(async () => undefined);
    expectTypeOf(receiver.release('held_1')).toEqualTypeOf<Promise<ReleaseResult>>();
    const released = await processing.release('held_1');
    if (!released.ok)
      expectTypeOf(released.reason).toEqualTypeOf<
        'not_found' | 'already_released' | 'dismissed' | 'already_applied' | 'refunded_since_held' | 'handler_failed'
      >();
    expectTypeOf(receiver.release('held_1', { note: 'checked with the payer', by: 'ana' })).toEqualTypeOf<Promise<ReleaseResult>>();
    // @ts-expect-error the trail's `by` is a string
    void receiver.release('held_1', { by: 42 });
    expectTypeOf(rootBook().dismiss('held_1', 'refunded by hand', { by: 'ana' })).toEqualTypeOf<Promise<DismissResult>>();
    expectTypeOf(rootBook().held({ state: 'closed' })).toEqualTypeOf<Promise<HeldEvent[]>>();
    // @ts-expect-error held() filters by open or closed only
    void rootBook().held({ state: 'releasing' });
    expectTypeOf(rootBook().heldEvent('held_1')).toEqualTypeOf<Promise<HeldEvent | undefined>>();
    // @ts-expect-error a policy key is a reason code
    createReceiver({ secret: 's', book: rootBook(), policy: { amount: 'hold' } });
    // @ts-expect-error a policy value is hold or flag
    createProcessing({ book: rootBook(), policy: { stale_status: 'ignore' } });
    // @ts-expect-error a book is a PaymentBook
    createReceiver({ secret: 's', book: {} });
    // @ts-expect-error the book belongs to the shared processing
    createReceiver({ secret: 's', processing, book: rootBook() });
    // @ts-expect-error the policy belongs to the shared processing
    createReceiver({ secret: 's', processing, policy: {} });
    // @ts-expect-error release takes a held id
    void receiver.release();
  });
});
