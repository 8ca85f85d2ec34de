import type { AnswerExtra, ReceiveResult } from './receive-answer.js';
import { reasonStatus, type ReasonCode } from '../shared/reasons.js';
import type { ItemOutcome } from './source-delivery.js';

type Answer = (reason: ReasonCode | undefined, extra?: AnswerExtra) => ReceiveResult;

/**
 * A call's one answer from its items' outcomes. The worst item decides: any 5xx makes the PSP resend the
 * call, and the done items answer as duplicates then. `keptReason` is set when unreadable items could not be kept.
 */
export function batchAnswer(answer: Answer, outcomes: readonly ItemOutcome[], keptReason: ReasonCode | undefined): ReceiveResult {
  let worst: ItemOutcome | undefined;
  for (const outcome of outcomes) {
    const reason = outcome.accepted.reason;
    if (reason !== undefined && reasonStatus[reason] >= 300 && (worst === undefined || worst.accepted.reason === undefined))
      worst = outcome;
  }
  if (worst !== undefined)
    return answer(worst.accepted.reason, {
      event: worst.event,
      ...(worst.accepted.key !== undefined && { key: worst.accepted.key }),
      ...(worst.accepted.hint !== undefined && { hint: worst.accepted.hint }),
    });
  if (keptReason !== undefined) return answer(keptReason, { hint: 'an unreadable item could not be kept in the quarantine' });
  // One event: its own reason (duplicate, held…), as the gateway receiver answers; a batch: plain 200.
  if (outcomes.length === 1) {
    const only = outcomes[0]!;
    return answer(only.accepted.reason, { event: only.event, ...(only.accepted.key !== undefined && { key: only.accepted.key }) });
  }
  return answer(undefined);
}
