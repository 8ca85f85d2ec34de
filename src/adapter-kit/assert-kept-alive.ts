import type { ReceiverInternals } from '../intake/receiver-types.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';

/**
 * Background work on serverless platforms dies with the response unless something keeps it alive.
 * Adapters for such platforms call this before the first delivery; `fix` is their framework's advice.
 */
export function assertKeptAlive(receiver: Pick<ReceiverInternals, 'mode' | 'hasWaitUntil'>, keeper: unknown, fix: string): void {
  if (receiver.mode !== 'background' || receiver.hasWaitUntil || keeper !== undefined) return;
  throw new PixhookConfigError(
    'pixhook: `mode: "background"` on a serverless platform needs a way to keep work alive after the answer, or the ' +
      `platform may freeze the function and lose events. ${fix} Or use mode "inline".`,
  );
}
