import type { ReleaseResult } from './payment-book.js';

/** Why a release did not run the handlers. */
type ReleaseRefusal = Extract<ReleaseResult, { ok: false }>['reason'];

/** Each refusal in words, for a person deciding what to do next: the console and `pixhook book release` show them. */
export const releaseRefusalText: Readonly<Record<ReleaseRefusal, string>> = Object.freeze({
  not_found: 'no held event has this id',
  already_released: 'it was already released',
  dismissed: 'it was dismissed',
  already_applied: 'the book applied this fact already, through another copy of it: running it would apply it twice',
  refunded_since_held: 'its charge was refunded (or the money returned) since it was held: the money is gone, so it stays held; dismiss it',
  handler_failed: 'a handler failed: it stays held and can be released again',
});
