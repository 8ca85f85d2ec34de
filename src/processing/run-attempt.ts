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
  const context = new RunContext(input);
  const { claim, event } = input;
  let running: void | Promise<void>;
  try {
    running =
      event.kind === 'unknown' ? input.handlers.dispatchUnknown(event, context) : input.handlers.dispatch(event, context);
  } catch (error) {
    return { ok: false, error };
  }
  if (running === undefined) return claim?.lost ? lostOutcome(claim) : context.applied ? duplicate : ok;
  return runningAttempt(input, context, running);
}

/** The asynchronous rest of `runAttempt`: the handlers' promise against the time limit and the claim. */
function runningAttempt(input: AttemptInput, context: RunContext, running: Promise<void>): Promise<AttemptOutcome> {
  const { claim, event } = input;
  const succeeded = () => (context.applied ? duplicate : ok);
  const abort = (reason: unknown) => context.abort(reason);

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
    running.then(
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

/**
 * A run's context. A class, not a literal with a getter: it is made on every delivery, and V8 builds
 * accessor literals slowly. The AbortController (costly to make) only exists once `signal` is read
 * or the run is aborted. Copy it with `Object.create(context)` rather than a spread, which would
 * drop `signal` and `markDuplicate` (they live on the prototype).
 */
class RunContext implements HandlerContext {
  key: string | undefined;
  attempt: number;
  mode: AckMode;
  source: EventSource;
  applied = false;
  #controller: AbortController | undefined;

  constructor(input: AttemptInput) {
    this.key = input.key;
    this.attempt = input.attempt;
    this.mode = input.mode;
    this.source = input.source;
  }

  get signal(): AbortSignal {
    return (this.#controller ??= new AbortController()).signal;
  }

  markDuplicate(): void {
    this.applied = true;
  }

  abort(reason: unknown): void {
    (this.#controller ??= new AbortController()).abort(reason);
  }
}
