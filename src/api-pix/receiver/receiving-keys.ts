import type { ApiPixEvent } from '../../events/event-types.js';
import type { EssentialFailure } from '../../events/read-essentials.js';
import { PixhookConfigError } from '../../shared/pixhook-error.js';

/** The `keys` option, checked at construction: a non-empty list of receiving keys, or none. */
export function resolveKeys(keys: unknown): ReadonlySet<string> | undefined {
  if (keys === undefined) return undefined;
  if (!Array.isArray(keys) || keys.length === 0 || keys.some((key) => typeof key !== 'string' || key === ''))
    throw new PixhookConfigError('pixhook: `keys` must be a non-empty list of the receiving PIX keys (chaves) as strings.');
  return new Set(keys as string[]);
}

/** A Pix to another merchant's key is never dispatched as this merchant's money: it becomes a failure of the call. */
export function withKeyChecked(
  keys: ReadonlySet<string>,
  events: ApiPixEvent[],
  base: string,
  failures: EssentialFailure[],
): ApiPixEvent[] {
  const first = events[0];
  if (first === undefined || first.name !== 'pix_received') return events;
  const key = first.pix.key;
  if (key !== undefined && keys.has(key)) return events;
  const path = base === '' ? 'chave' : `${base}.chave`;
  failures.push({
    path,
    message: `${path}: ${key === undefined ? 'no receiving key given' : 'a key that is not one of `keys`'}; not dispatched (unknown_key)`,
  });
  return [];
}
