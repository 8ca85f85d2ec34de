/** A value now, or a promise of it: a step that stays synchronous when its work was (every await is a tick). */
export type MaybePromise<T> = T | Promise<T>;

/** True for a promise or any thenable (a custom store may return one). */
export function isPromise<T>(value: MaybePromise<T> | PromiseLike<T>): value is Promise<T> {
  return (
    value instanceof Promise || (typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function')
  );
}

/**
 * (Not named `then`: a module exporting `then` is itself a thenable, and `await import()` of it hangs.)
 * `onValue(value, context)` at once when `value` is not a promise, else once it resolves
 * (`onError(error, context)` if it rejects). `context` lets a hot path hand its state to a
 * module-level function instead of making a closure on every call.
 */
export function andThen<T, R, C = undefined>(
  value: MaybePromise<T>,
  onValue: (value: T, context: C) => MaybePromise<R>,
  onError?: (error: unknown, context: C) => MaybePromise<R>,
  context?: C,
): MaybePromise<R> {
  if (!isPromise(value)) return onValue(value, context as C);
  return Promise.resolve(value).then(
    (resolved) => onValue(resolved, context as C),
    onError && ((error: unknown) => onError(error, context as C)),
  );
}
