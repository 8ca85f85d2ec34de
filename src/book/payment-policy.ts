import { describeGiven } from '../shared/option-checks.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import { policyReasons, type PolicyAction, type PolicyReason } from '../events/violation.js';

/**
 * What `createReceiver({ book, policy })` takes: any reason, set to `hold` or `flag`; the rest keep their default.
 * `unknown_key` is `hold` only: a Pix to another key is never the merchant's money, so no handler may run it unseen.
 */
export type PaymentPolicy = Partial<Record<Exclude<PolicyReason, 'unknown_key'>, PolicyAction>> & { unknown_key?: 'hold' };

/** A policy with every reason decided, as `checkPolicy` returns it. */
export type ResolvedPolicy = Readonly<Record<PolicyReason, PolicyAction>>;

/** The documented defaults: money-moving mismatches are held, the merely suspicious are flagged. */
export const defaultPolicy: ResolvedPolicy = Object.freeze({
  stale_status: 'hold',
  amount_mismatch: 'hold',
  payer_mismatch: 'hold',
  paid_after_expiry: 'flag',
  duplicate_payment: 'hold',
  unknown_charge: 'flag',
  not_confirmed: 'hold',
  unknown_key: 'hold',
});

const reasonSet: ReadonlySet<string> = new Set(policyReasons);

/** The full policy for `policy` (undefined: the defaults); a setup error for any unknown key or value. */
export function checkPolicy(policy: PaymentPolicy | undefined): ResolvedPolicy {
  if (policy === undefined) return defaultPolicy;
  if (typeof policy !== 'object' || policy === null || Array.isArray(policy)) {
    throw new PixhookConfigError(
      `pixhook: \`policy\` must be an object of reason codes set to "hold" or "flag", got ${describeGiven(policy)}.`,
    );
  }
  const resolved: Record<PolicyReason, PolicyAction> = { ...defaultPolicy };
  for (const [key, value] of Object.entries(policy as Record<string, unknown>)) {
    if (!reasonSet.has(key)) {
      const hint = key === 'dispute_deadline' ? ' `dispute_deadline` is an alert, set by `disputeAlertMs`, not a policy.' : '';
      throw new PixhookConfigError(
        `pixhook: \`policy\` keys must be reason codes (${policyReasons.join(', ')}), got ${describeGiven(key)}.${hint}`,
      );
    }
    // `flag` would run the handlers, which credit the money: a Pix to another key is never the merchant's.
    if (key === 'unknown_key' && value !== 'hold') {
      throw new PixhookConfigError(
        `pixhook: \`policy.unknown_key\` can only be "hold", got ${describeGiven(value)}: a Pix to a key that is not one of \`keys\` is never the merchant's money; release it by hand if it is.`,
      );
    }
    if (value !== 'hold' && value !== 'flag') {
      throw new PixhookConfigError(`pixhook: \`policy.${key}\` must be "hold" or "flag", got ${describeGiven(value)}.`);
    }
    resolved[key as PolicyReason] = value;
  }
  return Object.freeze(resolved);
}
