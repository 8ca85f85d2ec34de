import type { UnknownEvent } from '../events/event-types.js';
import { andThen, isPromise, type MaybePromise } from '../shared/maybe-promise.js';
import type { RunScope } from './claimed-run.js';
import type { DeliveryContext } from './delivery-context.js';
import { raceDeadline } from './inline-mode.js';
import { timedAttempt } from './journal-hook.js';
import type { AcceptResult } from './processing.js';

/** Unknown names are acknowledged and handed to onUnknown, never to typed handlers; not deduplicated. */
export function acceptUnknown(scope: RunScope, event: UnknownEvent, context: DeliveryContext): MaybePromise<AcceptResult> {
  const { writer, config } = scope;
  const id = writer && context.journal;
  const run = () => scope.runOnce(event, undefined, context.trace ?? scope.currentTrace());
  const running = id === undefined ? run() : timedAttempt(writer!, id, 1, run);
  const settled = andThen(running, (outcome) => (outcome.ok ? undefined : scope.reportFailure(event, undefined, outcome, 1)));
  if (!isPromise(settled)) return { reason: 'unknown_event' };
  // Inline waits for onUnknown, but never past the deadline: the answer is 200 either way.
  if (config.mode !== 'inline') {
    scope.keepAlive(settled, context.waitUntil);
    return { reason: 'unknown_event' };
  }
  return raceDeadline(settled, config.deadlineMs).then((result) => {
    if (result === 'deadline') scope.keepAlive(settled, context.waitUntil);
    return { reason: 'unknown_event' };
  });
}
