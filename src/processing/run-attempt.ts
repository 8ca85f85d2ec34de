import type { HeldClaim } from '../dedupe/claim-keeper.js';
import type { EventSource, PixEvent, UnknownEvent } from '../events/event-types.js';
import { PixhookError } from '../shared/pixhook-error.js';
import type { HandlerContext, HandlerRegistry } from './handler-registry.js';
import type { AckMode } from './processing-options.js';

/** How one run of an event's handlers ended. `timedOut` and `claimLost` runs count as failed. */
export type AttemptOutcome = { ok: true; duplicate?: true } | { ok: false; error: unknown; timedOut?: true; claimLost?: true };

const ok: AttemptOutcome = { ok: true };
const duplicate: AttemptOutcome = { ok: true, duplicate: true };

export interface AttemptInput {
  handlers: HandlerRegistry;
  event: PixEvent | UnknownEvent;
  attempt: number;
  mode: AckMode;
  source: EventSource;
  limitMs: number;
  /** The claim this run holds (none for unknown events and durable jobs, which BullMQ's lock guards). */
  claim?: HeldClaim;
  key?: string;
}

/**
 * Runs an event's handlers once, bounded by `limitMs`. Past the limit, or when the claim is lost,
 * the run ends as failed and `context.signal` aborts; the handler's promise is abandoned (JavaScript
 * cannot stop it). Synchronous handlers cost no timer and no abort controller. Never rejects.
 */
export function runAttempt(input: AttemptInput): AttemptOutcome | Promise<AttemptOutcome> {
  let controller: AbortController | undefined;
  let applied = false;
  const succeeded = () => (applied ? duplicate : ok);
  const abort = (reason: unknown) => (controller ??= new AbortController()).abort(reason);
  const context: HandlerContext = {
    ...(input.key !== undefined && { key: input.key }),
    attempt: input.attempt,
    mode: input.mode,
    source: input.source,
    get signal() {
      return (controller ??= new AbortController()).signal;
    },
    markDuplicate: () => void (applied = true),
  };
  const { claim, event } = input;
  let running: void | Promise<void>;
  try {
    running =
      event.kind === 'unknown' ? input.handlers.dispatchUnknown(event, context) : input.handlers.dispatch(event, context);
  } catch (error) {
    return { ok: false, error };
  }
  if (running === undefined) return claim?.lost ? lostOutcome(claim) : succeeded();

  return new Promise<AttemptOutcome>((resolve) => {
    const timer = setTimeout(() => {
      const error = new PixhookError('handler_timeout', `the handlers of ${event.name} ran past handlerTimeoutMs (${input.limitMs} ms)`);
      abort(error);
      resolve({ ok: false, error, timedOut: true });
    }, input.limitMs);
    (timer as { unref?: () => void }).unref?.();
    if (claim) {
      claim.onLost = () => {
        clearTimeout(timer);
        const outcome = lostOutcome(claim);
        abort((outcome as { error: unknown }).error);
        resolve(outcome);
      };
    }
    (running as Promise<void>).then(
      () => {
        clearTimeout(timer);
        resolve(claim?.lost ? lostOutcome(claim) : succeeded());
      },
      (error: unknown) => {
        clearTimeout(timer);
        resolve({ ok: false, error });
      },
    );
  });
}

function lostOutcome(claim: HeldClaim): AttemptOutcome {
  return {
    ok: false,
    claimLost: true,
    error: new PixhookError('claim_lost', `the claim on ${claim.key} could not be renewed; another run may take the event`),
  };
}
