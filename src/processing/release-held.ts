import type { PaymentBook, ReleaseResult, ReleaseTrail } from '../book/payment-book.js';
import type { PixEvent } from '../events/event-types.js';
import { describeError } from '../shared/describe-error.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import type { RunScope } from './claimed-run.js';
import { timedRelease } from './journal-hook.js';

interface ReleaseInput {
  readonly scope: RunScope;
  readonly book: PaymentBook | undefined;
  /** A fresh owner id for the done mark. */
  newOwner(): string;
}

/**
 * Runs a held event's handlers once, when a person decided it is right: the book's release claim makes
 * it once across every processing sharing the book; a failing handler leaves it held (`handler_failed`).
 */
export async function releaseHeld(input: ReleaseInput, heldId: string, trail?: ReleaseTrail): Promise<ReleaseResult> {
  const { scope, book } = input;
  const { writer, store, config, log, metrics } = scope;
  if (book === undefined)
    throw new PixhookConfigError('pixhook: `release` needs a `book` (createReceiver({ book })): nothing is held without one.');
  const claim = await book.claimRelease(heldId);
  if (!claim.ok) return claim;
  const { held } = claim;
  // An event held by a version before `raw` existed (stored as JSON) gets it back: the handlers read one shape.
  const stored = held.event.raw === undefined ? { ...held.event, raw: held.event.payload } : held.event;
  const event: PixEvent = held.violations.length > 0 ? { ...stored, violations: held.violations } : stored;
  const running = () => scope.runOnce(event, held.dedupeKey, scope.currentTrace());
  // The claim outlives the handlers: renewed at a third of its lease while they run.
  const renewing = renewWhileRunning(book, heldId, claim.leaseMs, log);
  let outcome: Awaited<ReturnType<typeof running>>;
  try {
    outcome = await (writer === undefined ? running() : timedRelease(writer, held, running));
  } finally {
    clearInterval(renewing);
  }
  // The book's answer decides: a release that lost its claim (another took it) never answers ok.
  if (!(await book.finishRelease(heldId, outcome.ok, trail))) {
    log.error({ heldId }, 'pixhook: a release lost its claim while its handlers ran; another release owns it');
    return { ok: false, reason: 'already_released' };
  }
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

function renewWhileRunning(
  book: PaymentBook,
  heldId: string,
  leaseMs: number | undefined,
  log: RunScope['log'],
): ReturnType<typeof setInterval> | undefined {
  if (leaseMs === undefined) return undefined;
  const timer = setInterval(
    () => {
      book.renewRelease(heldId).then(
        (renewed) => {
          if (!renewed) log.warn({ heldId }, 'pixhook: a release lost its claim while its handlers ran');
        },
        (error: unknown) => log.warn({ heldId, error: describeError(error) }, 'pixhook: could not renew a release claim'),
      );
    },
    Math.max(1, Math.floor(leaseMs / 3)),
  );
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
