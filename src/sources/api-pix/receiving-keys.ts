import { PixhookConfigError } from '../../shared/pixhook-error.js';

/** The `keys` option, checked at construction: a non-empty list of receiving keys, or none. */
export function resolveKeys(keys: unknown): ReadonlySet<string> | undefined {
  if (keys === undefined) return undefined;
  if (!Array.isArray(keys) || keys.length === 0 || keys.some((key) => typeof key !== 'string' || key === ''))
    throw new PixhookConfigError('pixhook: `keys` must be a non-empty list of the receiving PIX keys (chaves) as strings.');
  return new Set(keys as string[]);
}
