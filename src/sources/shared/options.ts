import { PixhookConfigError } from '../../shared/pixhook-error.js';

/** A required non-empty string option, or a `PixhookConfigError` naming it. */
export function requiredText(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new PixhookConfigError(`pixhook: \`${name}\` is required: a non-empty string.`);
  return value;
}

/** An optional non-empty string option. */
export function optionalText(name: string, value: unknown): string | undefined {
  return value === undefined ? undefined : requiredText(name, value);
}

/** A `PixhookConfigError` naming `option`: "pixhook: `<option>` <rest>". */
export function configFail(option: string, rest: string): never {
  throw new PixhookConfigError(`pixhook: \`${option}\` ${rest}`);
}
