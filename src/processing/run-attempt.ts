import type { HeldClaim } from '../dedupe/claim-keeper.js';
import type { EventSource, PixEvent, UnknownEvent } from '../events/event-types.js';
import { andThen, type MaybePromise } from '../shared/maybe-promise.js';
import { PixhookError } from '../shared/pixhook-error.js';
import type { Telemetry, TelemetryAttributes, TelemetrySpan } from '../shared/telemetry.js';
import type { EventHandler, HandlerContext, HandlerRegistry } from './handler-registry.js';
import type { AckMode } from './processing-options.js';

/** How one run of an event's handlers ended. `timedOut` and `claimLost` runs count as failed. */
export type AttemptOutcome = { ok: true; duplicate?: true } | FailedAttempt;
export type FailedAttempt = { ok: false; error: unknown; timedOut?: true; claimLost?: true };

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
  /** When given, the run is a handler span (`pixhook handle <event>`) linked to `link`, the delivery's trace. */
  telemetry?: Telemetry | undefined;
  link?: Record<string, string> | undefined;
}

/**
 * Runs an event's handlers once, in registration order (named first, then `onAny`), failing on the
 * first failure, bounded by `limitMs`. Past the limit, or when the claim is lost, the run ends as
 * failed and `context.signal` aborts; the handler's promise is abandoned (JavaScript cannot stop it).
 * Synchronous handlers cost no timer, no abort controller and no tick. With telemetry, the run is a
 * span linked to the delivery's, also when it happens later (background, a durable worker);
 * telemetry failures never touch the run. Never rejects.
 */
export function runAttempt(input: AttemptInput): MaybePromise<AttemptOutcome> {
  if (input.telemetry === undefined) return dispatch(input);
  let span: TelemetrySpan;
  try {
    span = input.telemetry.startRun(`pixhook handle ${input.event.name}`, spanAttributes(input), input.link);
  } catch {
    return dispatch(input);
  }
  return andThen(
    span.run(() => dispatch(input)),
    endSpan,
    undefined,
    { span, input },
  );
}

function dispatch(input: AttemptInput): MaybePromise<AttemptOutcome> {
  const { claim, event, handlers } = input;
  const list: readonly EventHandler<never>[] =
    event.kind === 'unknown' ? handlers.unknown : (handlers.byName.get(event.name) ?? handlers.any);
  const context = new RunContext(input);
  for (let i = 0; i < list.length; i++) {
    let result: void | Promise<void>;
    try {
      result = list[i]!(event as never, context);
    } catch (error) {
      return { ok: false, error };
    }
    if (result !== undefined && typeof (result as Promise<void>)?.then === 'function') {
      return bounded(input, context, rest(list, i + 1, result, event, context));
    }
  }
  return claim?.lost ? lostOutcome(claim) : context.applied ? duplicate : ok;
}

/** The handlers after the first that returned a promise, each awaited in turn. */
async function rest(
  list: readonly EventHandler<never>[],
  from: number,
  first: Promise<void>,
  event: unknown,
  context: RunContext,
): Promise<void> {
  await first;
  for (let i = from; i < list.length; i++) await list[i]!(event as never, context);
}

/** The handlers' promise against the time limit and the claim. */
function bounded(input: AttemptInput, context: RunContext, running: Promise<void>): Promise<AttemptOutcome> {
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

function spanAttributes(input: AttemptInput): TelemetryAttributes {
  const attributes: TelemetryAttributes = {
    'messaging.system': 'pixhook',
    'messaging.operation.type': 'process',
    'pixhook.event.name': input.event.name,
    'pixhook.mode': input.mode,
    'pixhook.source': input.source,
    'pixhook.attempt': input.attempt,
  };
  if (input.key !== undefined) attributes['pixhook.dedupe.key'] = input.key;
  return attributes;
}

function endSpan(outcome: AttemptOutcome, { span, input }: { span: TelemetrySpan; input: AttemptInput }): AttemptOutcome {
  try {
    const name = outcome.ok
      ? outcome.duplicate
        ? 'duplicate'
        : 'handled'
      : outcome.timedOut
        ? 'timed_out'
        : outcome.claimLost
          ? 'claim_lost'
          : 'failed';
    span.setAttributes({ 'pixhook.outcome': name });
    if (!outcome.ok) span.fail(outcome.error);
    span.end();
    input.telemetry!.recordRun(name, { 'pixhook.event.name': input.event.name, 'pixhook.mode': input.mode });
  } catch {
    // Telemetry is best effort.
  }
  return outcome;
}

function lostOutcome(claim: HeldClaim): AttemptOutcome {
  return {
    ok: false,
    claimLost: true,
    error: new PixhookError('claim_lost', `the claim on ${claim.key} could not be renewed; another run may take the event`),
  };
}

// A copy made with `Object.create(context)` (as `inbox.transactional` makes one) reads its original through this
// key: its `signal` is the run's, and its `markDuplicate` marks the run. A symbol: JSON and spreads never see it.
const origin = Symbol('pixhook.context');

/**
 * A run's context. A class, not a literal with a getter: it is made on every delivery, and V8 builds
 * accessor literals slowly. The AbortController (costly to make) only exists once `signal` is read
 * or the run is aborted. Copy it with `Object.create(context)` rather than a spread, which would
 * drop `signal` and `markDuplicate` (they live on the prototype); a copy reads and marks the run itself.
 */
class RunContext implements HandlerContext {
  key: string | undefined;
  attempt: number;
  mode: AckMode;
  source: EventSource;
  applied = false;
  controller: AbortController | undefined = undefined;
  readonly [origin]: RunContext;

  constructor(input: AttemptInput) {
    this.key = input.key;
    this.attempt = input.attempt;
    this.mode = input.mode;
    this.source = input.source;
    this[origin] = this;
  }

  get signal(): AbortSignal {
    const run = this[origin];
    return (run.controller ??= new AbortController()).signal;
  }

  markDuplicate(): void {
    this[origin].applied = true;
  }

  abort(reason: unknown): void {
    (this.controller ??= new AbortController()).abort(reason);
  }
}
