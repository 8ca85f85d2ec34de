import { describeValue } from './describe-value.js';
import type { JsonObject, PayloadVariant } from './event-types.js';
import { asId, isAbsent } from './lenient-reader.js';

/** The four facts an event cannot be handled without; anything wrong here is a 400. */
export interface Essentials {
  id: string;
  status: string;
  amountInCents: number;
}

interface EssentialFailure {
  path: string;
  message: string;
}

// Which source names carry the amount, first one present wins: `amount` is cents in B though not called so,
// and A transfers carry either the webhook's `amountInCents` or the resource's `amount`.
const amountKeysA = ['amountInCents', 'amount'] as const;
const amountKeysB = ['amount', 'amountInCents'] as const;

export function readEssentials(resource: JsonObject, base: string, variant: PayloadVariant): Essentials | EssentialFailure {
  const rawId = resource['id'];
  const id = asId(rawId);
  if (id === undefined) return failure(base, 'id', 'expected the id as a non-empty string or an integer', rawId);
  const status = resource['status'];
  if (typeof status !== 'string') return failure(base, 'status', 'expected the status as a string', status);
  const keys = variant === 'a' ? amountKeysA : amountKeysB;
  const key = isAbsent(resource[keys[0]]) ? keys[1] : keys[0];
  const amount = resource[key];
  if (amount === undefined || amount === null) {
    return failure(base, keys[0], `expected ${keys[0]} or ${keys[1]} as non-negative integer cents`, amount);
  }
  if (!Number.isSafeInteger(amount) || (amount as number) < 0) {
    return failure(base, key, 'expected non-negative integer cents', amount);
  }
  return { id, status, amountInCents: amount as number };
}

export function failure(base: string, key: string, expected: string, found: unknown): EssentialFailure {
  const path = base === '' ? key : `${base}.${key}`;
  return { path, message: `${path === '' ? '(root)' : path}: ${expected}, found ${describeValue(found)}` };
}
