import type { PixEventName } from '../events/event-names.js';
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

export interface HandlerRegistry {
  on<N extends PixEventName>(name: N | readonly N[], handler: EventHandler<PixEventOf<N>>): void;
  onAny(handler: EventHandler<PixEvent>): void;
  onUnknown(handler: EventHandler<UnknownEvent>): void;
  onError(handler: ErrorHandler): void;
  /**
   * Runs the event's handlers in registration order (named first, then `onAny`); fails on the first
   * failure. Synchronous handlers settle synchronously (`undefined`): each await is a tick on the hot path.
   */
  dispatch(event: PixEvent, context: HandlerContext): void | Promise<void>;
  dispatchUnknown(event: UnknownEvent, context: HandlerContext): void | Promise<void>;
  /** Tells every `onError` handler; their own failures (thrown or rejected) are swallowed. Never rejects. */
  reportError(failure: HandlerFailure): Promise<void>;
  /** Handlers that can run a known event (`on`, `onAny`). */
  handlerCount(): number;
}

type AnyHandler = EventHandler<never>;

export function createHandlerRegistry(): HandlerRegistry {
  const byName = new Map<string, AnyHandler[]>();
  const any: EventHandler<PixEvent>[] = [];
  const unknown: EventHandler<UnknownEvent>[] = [];
  const errors: ErrorHandler[] = [];

  return {
    on(name, handler) {
      for (const n of typeof name === 'string' ? [name] : name) {
        const list = byName.get(n) ?? [];
        list.push(handler as AnyHandler);
        byName.set(n, list);
      }
    },
    onAny: (handler) => void any.push(handler),
    onUnknown: (handler) => void unknown.push(handler),
    onError: (handler) => void errors.push(handler),
    dispatch(event, context) {
      const named = byName.get(event.name) as EventHandler<PixEvent>[] | undefined;
      return runAll(named === undefined ? any : any.length === 0 ? named : [...named, ...any], event, context);
    },
    dispatchUnknown: (event, context) => runAll(unknown, event, context),
    handlerCount: () => any.length + [...byName.values()].reduce((sum, list) => sum + list.length, 0),
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

/** Calls each handler in turn; stays synchronous until a handler returns a promise. */
function runAll<E>(handlers: readonly EventHandler<E>[], event: E, context: HandlerContext): void | Promise<void> {
  for (let i = 0; i < handlers.length; i++) {
    const result = handlers[i]!(event, context);
    if (result !== undefined && typeof (result as Promise<void>)?.then === 'function') {
      return (async () => {
        await result;
        for (let j = i + 1; j < handlers.length; j++) await handlers[j]!(event, context);
      })();
    }
  }
  return undefined;
}

/** The four registration methods, bound to `registry` and returning `self` so calls chain (a processing, a receiver). */
export function registrationOf<T>(
  self: () => T,
  registry: Pick<HandlerRegistry, 'on' | 'onAny' | 'onUnknown' | 'onError'>,
): {
  on<N extends PixEventName>(name: N | readonly N[], handler: EventHandler<PixEventOf<N>>): T;
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
