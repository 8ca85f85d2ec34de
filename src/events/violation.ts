// What an event can carry about the book's rules: the reasons and the violation itself. It sits with the
// events because `event.violations` is part of every event; the book (which decides them) imports it.

/** The violations a `record` can find, one per event; each is set to `hold` or `flag` by the policy. */
export const policyReasons = [
  'stale_status',
  'amount_mismatch',
  'payer_mismatch',
  'paid_after_expiry',
  'duplicate_payment',
  'unknown_charge',
  'not_confirmed',
  'unknown_key',
] as const;

/** Every violation reason: the policy's, plus `dispute_deadline`, an alert about an open dispute, not about an event. */
export const violationReasons = [...policyReasons, 'dispute_deadline'] as const;

export type PolicyReason = (typeof policyReasons)[number];
export type ViolationReason = (typeof violationReasons)[number];

/** `hold`: handlers do not run, the event waits in the book for a person. `flag`: handlers run and hear the violation. */
export type PolicyAction = 'hold' | 'flag';

/** One broken rule, as `record` returns it and `onViolation` will hear it. Messages never carry a document number. */
export interface Violation {
  reason: ViolationReason;
  action: PolicyAction;
  message: string;
}
