import type { PaymentBook, ReleaseResult } from '../book/payment-book.js';
import type { PixEvent } from '../events/event-types.js';
import { describeError } from '../shared/describe-error.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import type { RunScope } from './claimed-run.js';
import { timedRelease } from './journal-hook.js';

export interface ReleaseInput {
  readonly scope: RunScope;
  readonly book: PaymentBook | undefined;
  /** A fresh owner id for the done mark. */
  newOwner(): string;
}

/**
 * Runs a held event's handlers once, when a person decided it is right: the book's release claim makes
 * it once across every processing sharing the book; a failing handler leaves it held (`handler_failed`).
 */
export async function releaseHeld(input: ReleaseInput, heldId: string): Promise<ReleaseResult> {
  const { scope, book } = input;
  const { writer, store, config, log, metrics } = scope;
  if (book === undefined)
    throw new PixhookConfigError('pixhook: `release` needs a `book` (createReceiver({ book })): nothing is held without one.');
  const claim = await book.claimRelease(heldId);
  if (!claim.ok) return claim;
  const { held } = claim;
  const event: PixEvent = held.violations.length > 0 ? { ...held.event, violations: held.violations } : held.event;
  const running = () => scope.runOnce(event, held.dedupeKey, scope.currentTrace());
  const outcome = await (writer === undefined ? running() : timedRelease(writer, held, running));
  await book.finishRelease(heldId, outcome.ok);
  if (!outcome.ok) {
    await scope.reportFailure(event, held.dedupeKey, outcome, 1);
    return { ok: false, reason: 'handler_failed' };
  }
  metrics.handled();
  // A fresh done mark: a late retry of a released event stays a duplicate for another dedupeTtlMs.
  try {
    await store.complete(held.dedupeKey, input.newOwner(), config.dedupeTtlMs);
  } catch (error) {
    log.warn({ key: held.dedupeKey, error: describeError(error) }, 'pixhook: could not mark a released event done');
  }
  return { ok: true };
}
