import { checkSecret, checkSecrets } from '../shared/option-checks.js';

// The last secret that passed: a verifier or signer called per delivery with one secret checks it once.
let lastChecked: string | undefined;

/** Throws `PixhookConfigError` for a `secret` (one, or a list while rotating) that cannot be one; cheap for the one already seen. */
export function checkSecretOption(secret: unknown): void {
  if (secret === lastChecked && secret !== undefined) return;
  if (typeof secret === 'string') lastChecked = checkSecret('secret', secret);
  else checkSecrets('secret', secret);
}

/** `checkSecretOption` for signers, which sign with one secret: a list is refused too. */
export function checkSigningSecret(secret: unknown): void {
  if (secret === lastChecked && secret !== undefined) return;
  lastChecked = checkSecret('secret', secret);
}
