import type { PixhookError } from '../shared/pixhook-error.js';

/** Where Node servers (and Express's default error handler) write errors: stderr, with the code an operator searches for. */
export function logToConsole(error: PixhookError): void {
  console.error(`pixhook: ${error.code}: ${error.message}`);
}

/** Shows a misconfiguration to the operator (`surface`, default stderr). The answer is already decided: a throwing logger changes nothing for the sender. */
export function surfaceSafely(surface: ((error: PixhookError) => void) | undefined, error: PixhookError): void {
  try {
    (surface ?? logToConsole)(error);
  } catch {
    // Nothing to do: the sender's answer does not depend on the log.
  }
}
