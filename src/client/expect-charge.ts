import type { ExpectedCharge } from '../index.js';
import { describeError } from '../shared/describe-error.js';
import { guardLogger, type Logger } from '../shared/logger.js';
import { withTimeout } from '../shared/with-timeout.js';
import type { ExpectingBook } from './client-options.js';

/** Whether `createClient({ book })` recorded a created charge's expectation; a failure never fails the charge. */
export type ChargeExpectStatus = { ok: true } | { ok: false; error: unknown };

/** A book that has not answered by then has failed: the charge is returned without waiting longer. */
const expectTimeoutMs = 5_000;

interface CreatedCharge {
  id: string;
  input: { amountInCents: number; customer: { document: string } };
  /** The gateway's expiry, when its answer carries one (the interface does not document it). */
  expiresAt: unknown;
}

/** `book.expect` for a created charge: the amount asked for, the customer as the payer, the gateway's expiry. Never rejects. */
export async function expectCharge(book: ExpectingBook, charge: CreatedCharge, logger: Logger | undefined): Promise<ChargeExpectStatus> {
  const expected: ExpectedCharge = {
    id: charge.id,
    amountInCents: charge.input.amountInCents,
    payerDocument: charge.input.customer.document,
  };
  const expiresAt = charge.expiresAt;
  if (
    (typeof expiresAt === 'string' && Number.isFinite(Date.parse(expiresAt))) ||
    (typeof expiresAt === 'number' && Number.isFinite(expiresAt))
  )
    expected.expiresAt = expiresAt;
  try {
    await withTimeout(
      Promise.resolve().then(() => book.expect(expected)),
      expectTimeoutMs,
      `book.expect(${charge.id})`,
    );
    return { ok: true };
  } catch (error) {
    guardLogger(logger).error(
      { chargeId: charge.id, error: describeError(error) },
      'pixhook client: the payment book could not record the charge; its payment will be judged without an expectation',
    );
    return { ok: false, error };
  }
}
