import type { Violation } from '../events/violation.js';
import { apiPixEventNames, isApiPixEventName, isPixEventName, pixEventNames, type EventName } from '../events/event-names.js';
import { describeGiven } from '../shared/option-checks.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import type { EventSource, PixEvent, PixEventOf, UnknownEvent } from '../events/event-types.js';
import type { AckMode } from './processing-options.js';

export interface HandlerContext {
  /** The dedupe key this run holds (absent for unknown events, which are not deduplicated). */
  key?: string;
  /** 1 for the first run of this delivery; background and durable retries count up. */
  attempt: number;
  mode: AckMode;
  /** Which path brought the event. */
  source: EventSource;
  /** Aborted when the run passes `handlerTimeoutMs` or loses its claim: stop side effects that have not started. */
  readonly signal: AbortSignal;
  /**
   * Says the event was already applied (a transactional inbox found its key done): the run ends as a
   * duplicate — answered 200 `duplicate`, not counted as handled — instead of as a new success.
   */
  markDuplicate(): void;
}

export type EventHandler<E> = (event: E, context: HandlerContext) => void | Promise<void>;

/** What `onError` receives. `error` is the handler's own error: it is never sent to the gateway. */
export interface HandlerFailure {
  error: unknown;
  event: PixEvent | UnknownEvent;
  key?: string;
  attempt: number;
  mode: AckMode;
}

export type ErrorHandler = (failure: HandlerFailure) => void | Promise<void>;

/** Hears one violation the payment book found (held or flagged) and the event; its failures are logged, never the delivery's. */
export type ViolationHandler = (violation: Violation, event: PixEvent) => void | Promise<void>;

export interface HandlerRegistry {
  on<N extends EventName>(name: N | readonly N[], handler: EventHandler<PixEventOf<N>>): void;
  onAny(handler: EventHandler<PixEvent>): void;
  onUnknown(handler: EventHandler<UnknownEvent>): void;
  onError(handler: ErrorHandler): void;
  /**
   * The handlers of each event name that has named ones, in the order they run (named first, then
   * `onAny`): built at registration, so a run only looks its list up (see `runAttempt`).
   */
  readonly byName: ReadonlyMap<string, readonly EventHandler<PixEvent>[]>;
  /** The `onAny` handlers: the whole list of a name without named handlers. */
  readonly any: readonly EventHandler<PixEvent>[];
  readonly unknown: readonly EventHandler<UnknownEvent>[];
  /** Tells every `onError` handler; their own failures (thrown or rejected) are swallowed. Never rejects. */
  reportError(failure: HandlerFailure): Promise<void>;
  /** Handlers that can run a known event (`on`, `onAny`). */
  handlerCount(): number;
}

export function createHandlerRegistry(): HandlerRegistry {
  const named = new Map<string, EventHandler<PixEvent>[]>();
  const byName = new Map<string, readonly EventHandler<PixEvent>[]>();
  const any: EventHandler<PixEvent>[] = [];
  const unknown: EventHandler<UnknownEvent>[] = [];
  const errors: ErrorHandler[] = [];
  const rebuild = (name: string): void => void byName.set(name, [...named.get(name)!, ...any]);

  return {
    byName,
    any,
    unknown,
    on(name, handler) {
      const names: readonly string[] = typeof name === 'string' ? [name] : Array.isArray(name) ? name : [String(name)];
      // A typo (`transaction_payed`) would register a handler that never runs while its deliveries answer 200.
      for (const n of names) if (!isPixEventName(n) && !isApiPixEventName(n)) throw unknownName(n);
      checkHandler('on', handler);
      for (const n of names as readonly EventName[]) {
        const list = named.get(n) ?? [];
        list.push(handler as EventHandler<PixEvent>);
        named.set(n, list);
        rebuild(n);
      }
    },
    onAny(handler) {
      checkHandler('onAny', handler);
      any.push(handler);
      for (const name of named.keys()) rebuild(name);
    },
    onUnknown: (handler) => void (checkHandler('onUnknown', handler), unknown.push(handler)),
    onError: (handler) => void (checkHandler('onError', handler), errors.push(handler)),
    handlerCount: () => any.length + [...named.values()].reduce((sum, list) => sum + list.length, 0),
    async reportError(failure) {
      for (const handler of errors) {
        try {
          await handler(failure);
        } catch {
          // An onError that throws must not turn one failure into two.
        }
      }
    },
  };
}

function unknownName(name: string): PixhookConfigError {
  const known = [...pixEventNames, ...apiPixEventNames].join(', ');
  return new PixhookConfigError(
    `pixhook: \`on(${JSON.stringify(name)})\`: not an event name; one of ${known} (onUnknown hears the others).`,
  );
}

function checkHandler(method: string, handler: unknown): void {
  if (typeof handler !== 'function')
    throw new PixhookConfigError(`pixhook: \`${method}(…)\` needs a handler function, got ${describeGiven(handler)}.`);
}

/** The four registration methods, bound to `registry` and returning `self` so calls chain (a processing, a receiver). */
export function registrationOf<T>(
  self: () => T,
  registry: Pick<HandlerRegistry, 'on' | 'onAny' | 'onUnknown' | 'onError'>,
): {
  on<N extends EventName>(name: N | readonly N[], handler: EventHandler<PixEventOf<N>>): T;
  onAny(handler: EventHandler<PixEvent>): T;
  onUnknown(handler: EventHandler<UnknownEvent>): T;
  onError(handler: ErrorHandler): T;
} {
  return {
    on: (name, handler) => (registry.on(name, handler), self()),
    onAny: (handler) => (registry.onAny(handler), self()),
    onUnknown: (handler) => (registry.onUnknown(handler), self()),
    onError: (handler) => (registry.onError(handler), self()),
  };
}
