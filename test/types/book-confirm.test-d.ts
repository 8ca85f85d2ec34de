import { describe, expectTypeOf, it } from 'vitest';
import { createProcessing, createReceiver, memoryPaymentBook, type ConfirmClient, type ConfirmSetting } from '../../src/index.js';
import { createClient, readBudget, type ChargeExpectStatus, type Charge, type ReadBudget } from '../../src/client/index.js';
import type { ApiPixClient } from '../../src/api-pix/index.js';
import type { EmulatorPayment, Emulator, ChargeRecord } from '../../src/emulator/index.js';

const book = memoryPaymentBook();
const pix = createClient({ apiKey: 'k', apiSecret: 's', baseUrl: 'http://127.0.0.1:1', book, readBudget: readBudget({ perMinute: 60 }) });

describe('confirm, disputeAlertMs, readBudget and createClient({ book }) (issue 22)', () => {
  it('takes a client, or { client, timeoutMs, events }, for confirm', () => {
    expectTypeOf(pix).toMatchTypeOf<ConfirmClient>();
    createReceiver({ secret: 's', book, confirm: pix, disputeAlertMs: 60_000 });
    createProcessing({ book, confirm: { client: pix, timeoutMs: 1_000, events: ['transaction_paid'] } });
    // @ts-expect-error only money events can be confirmed
    createProcessing({ book, confirm: { client: pix, events: ['transaction_created'] } });
    // @ts-expect-error a confirm client reads transactions
    createProcessing({ book, confirm: { getCompany: () => undefined } });
    // @ts-expect-error disputeAlertMs is milliseconds
    createProcessing({ book, disputeAlertMs: '7d' });
    expectTypeOf<{ client: ConfirmClient }>().toMatchTypeOf<ConfirmSetting>();
    // The API Pix client too: it re-reads GET /pix/{e2eid} before a pix_received runs.
    expectTypeOf<ApiPixClient>().toMatchTypeOf<ConfirmClient>();
  });

  it('checkDisputes resolves the number of disputes told', () => {
    expectTypeOf(createReceiver({ secret: 's', book }).checkDisputes()).toEqualTypeOf<Promise<number>>();
    expectTypeOf(createProcessing({ book }).checkDisputes()).toEqualTypeOf<Promise<number>>();
  });

  it('a read budget and the expectation status on a created charge', () => {
    expectTypeOf(readBudget({ perMinute: 10 })).toEqualTypeOf<ReadBudget>();
    expectTypeOf(readBudget({ perMinute: 10 }).take()).toEqualTypeOf<number>();
    // @ts-expect-error perMinute is required
    readBudget({});
    expectTypeOf<Charge['expected']>().toEqualTypeOf<ChargeExpectStatus | undefined>();
    // @ts-expect-error the book must be able to expect
    createClient({ apiKey: 'k', apiSecret: 's', baseUrl: 'u', book: { get: async () => undefined } });
  });

  it('the emulator pays with an amount and a payer, and opens disputes', () => {
    expectTypeOf<Emulator['pay']>().parameters.toEqualTypeOf<[id: string, payment?: EmulatorPayment]>();
    expectTypeOf<Emulator['infraction']>().returns.toEqualTypeOf<ChargeRecord>();
    expectTypeOf<EmulatorPayment>().toEqualTypeOf<{ amountInCents?: number; payer?: import('../../src/index.js').PixPayer }>();
  });
});
