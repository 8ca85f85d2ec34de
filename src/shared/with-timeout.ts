import { PixhookTimeoutError } from './pixhook-error.js';

/** Resolves like `promise`, or rejects with `PixhookTimeoutError` after `ms`. The timer never keeps a process alive. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  // One promise and one timer per call (not a race of two promises and a `finally`): it bounds every store call.
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new PixhookTimeoutError(`${what} took longer than ${ms} ms`)), ms);
    (timer as { unref?: () => void }).unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error as Error);
      },
    );
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
