import { describe, expect, it } from 'vitest';
import { PixhookConfigError } from '../../src/index.js';
import { checkPolicy, defaultPolicy } from '../../src/book/payment-policy.js';
import { policyReasons, violationReasons } from '../../src/events/violation.js';

describe('checkPolicy', () => {
  it('documents the defaults: hold the mismatches, the duplicate payment, stale statuses, not_confirmed and unknown_key; flag the others', () => {
    expect(checkPolicy(undefined)).toEqual({
      amount_mismatch: 'hold',
      payer_mismatch: 'hold',
      duplicate_payment: 'hold',
      stale_status: 'hold',
      not_confirmed: 'hold',
      paid_after_expiry: 'flag',
      unknown_charge: 'flag',
      unknown_key: 'hold',
    });
    expect(defaultPolicy).toEqual(checkPolicy({}));
  });

  it('has the stable reason codes, dispute_deadline among the violations but not a policy key', () => {
    expect([...violationReasons].sort()).toEqual([
      'amount_mismatch',
      'dispute_deadline',
      'duplicate_payment',
      'not_confirmed',
      'paid_after_expiry',
      'payer_mismatch',
      'stale_status',
      'unknown_charge',
      'unknown_key',
    ]);
    expect(policyReasons).not.toContain('dispute_deadline');
  });

  it('overrides only the reasons given', () => {
    const policy = checkPolicy({ amount_mismatch: 'flag', unknown_charge: 'hold' });
    expect(policy.amount_mismatch).toBe('flag');
    expect(policy.unknown_charge).toBe('hold');
    expect(policy.payer_mismatch).toBe('hold');
    expect(Object.isFrozen(policy)).toBe(true);
  });

  it.each([
    ['an unknown key', { amount_mismatc: 'hold' }, /`policy` keys must be reason codes .*got the string "amount_mismatc"/],
    ['dispute_deadline as a key', { dispute_deadline: 'hold' }, /`dispute_deadline` is an alert, set by `disputeAlertMs`/],
    [
      'unknown_key set to flag (money to another key is never the merchant’s)',
      { unknown_key: 'flag' },
      /^pixhook: `policy\.unknown_key` can only be "hold"/,
    ],
    ['unknown_key set to another value', { unknown_key: 'ignore' }, /`policy\.unknown_key` can only be "hold", got the string "ignore"/],
    ['an unknown value', { stale_status: 'ignore' }, /`policy.stale_status` must be "hold" or "flag", got the string "ignore"/],
    ['a value of the wrong type', { stale_status: true }, /`policy.stale_status` must be "hold" or "flag", got true/],
    ['not an object', 'hold', /`policy` must be an object/],
    ['an array', ['hold'], /`policy` must be an object .*got an array/],
    ['null', null, /`policy` must be an object/],
  ])('refuses %s with PixhookConfigError config_invalid', (_label, policy, message) => {
    let thrown: unknown;
    try {
      checkPolicy(policy as never);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(PixhookConfigError);
    expect((thrown as PixhookConfigError).code).toBe('config_invalid');
    expect((thrown as Error).message).toMatch(message);
  });
});
