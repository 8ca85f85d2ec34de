import type { PixEventName } from './events/event-names.js';
import type { PixEvent, PixEventOf, UnknownEvent } from './events/event-types.js';

export type AckMode = 'inline' | 'background' | 'durable';

export interface HandlerContext {
  /** The dedupe key this run holds (absent for unknown events, which are not deduplicated). */
  key?: string;
  /** 1 for the first run of this delivery; background and durable retries count up. */
  attempt: number;
  mode: AckMode;
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
  /** Runs the event's handlers in registration order (named first, then `onAny`); rejects on the first failure. */
  dispatch(event: PixEvent, context: HandlerContext): Promise<void>;
  dispatchUnknown(event: UnknownEvent, context: HandlerContext): Promise<void>;
  /** Tells every `onError` handler; their own failures are swallowed so reporting never breaks a delivery. */
  reportError(failure: HandlerFailure): Promise<void>;
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
    async dispatch(event, context) {
      const named = byName.get(event.name) as EventHandler<PixEvent>[] | undefined;
      // A synchronous handler's undefined needs no await: each await is a tick on the hot path.
      if (named) {
        for (const handler of named) {
          const result = handler(event, context);
          if (result !== undefined) await result;
        }
      }
      for (const handler of any) {
        const result = handler(event, context);
        if (result !== undefined) await result;
      }
    },
    async dispatchUnknown(event, context) {
      for (const handler of unknown) await handler(event, context);
    },
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
