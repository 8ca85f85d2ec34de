// `pixhook send --profile <psp>`: one webhook as the PSP sends it, shaped and signed by the emulator's profile
// of that PSP (which signs with the sources' own signers): Mercado Pago's id-only notification with
// `x-signature`, Asaas's token, PagBank's `x-authenticity-token`, Woovi's RSA signature, Pagar.me's URL secret.
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pspProfiles } from '../src/emulator/psp/psp-profiles.js';
import { isPspProfileName } from '../src/emulator/psp/psp-profiles.js';
import type { PspCharge, PspProfileName } from '../src/emulator/psp/psp-profile.js';
import { UsageError } from './shared/cli-args.js';
import { jsonText } from './shared/json-text.js';

export { isPspProfileName };

/** What `--secret` is for each PSP (Woovi signs with `--key <private key PEM>` instead; Pagar.me's goes in the URL). */
const secretNames: Record<PspProfileName, string | undefined> = {
  'mercado-pago': 'secret',
  asaas: 'token',
  pagbank: 'token',
  woovi: undefined,
  pagarme: undefined,
};

interface PspSendValues {
  url: string;
  secret: string | undefined;
  key: string | undefined;
  id: string | undefined;
  amountInCents: number | undefined;
  status: string | undefined;
}

/** Flags of the other profiles that a PSP's webhook has no use for. */
export function refusePspFlags(psp: PspProfileName, values: Record<string, unknown>, positionals: string[]): void {
  if (positionals.length > 0)
    throw new UsageError(`--profile ${psp} sends the PSP's payment webhook, not an event: drop ${jsonText(positionals[0])}`);
  const given = (['variant', 'signature-header', 'count', 'shape', 'refund', 'txid', 'chave', 'cert', 'body'] as const).filter(
    (k) => values[k] !== undefined,
  );
  if (psp !== 'woovi' && values['key'] !== undefined) given.push('key' as never);
  if (given.length > 0) throw new UsageError(`--profile ${psp} does not take --${given.join(', --')}`);
}

/** The webhook's URL (the PSP's query added: Mercado Pago's `data.id`, Pagar.me's URL secret), headers, body and label. */
export async function pspCallFrom(
  psp: PspProfileName,
  values: PspSendValues,
): Promise<{ url: string; headers: Record<string, string>; body: string; label: string }> {
  const credentials: Record<string, string> = {};
  const secretName = secretNames[psp];
  if (secretName !== undefined) credentials[secretName] = values.secret!;
  if (psp === 'woovi') {
    if (values.key === undefined) throw new UsageError('--profile woovi signs with RSA: give --key <private key PEM file>');
    credentials['privateKey'] = rsaPrivateKeyFile(values.key);
  }
  const status = values.status ?? 'paid';
  if (status !== 'paid' && status !== 'pending') throw new UsageError(`--status must be paid or pending, got ${jsonText(status)}`);
  const profile = pspProfiles[psp](credentials);
  const now = Date.now();
  const amountInCents = values.amountInCents ?? 1990;
  const charge: PspCharge = {
    id: values.id ?? profile.chargeId(1),
    amountInCents,
    status,
    payerDocument: '19119119100',
    createdAt: new Date(now).toISOString(),
    ...(status === 'paid' && {
      paidInCents: amountInCents,
      paidAt: new Date(now).toISOString(),
      endToEndId: `E00000000${String(now).padStart(23, '0')}`,
    }),
  };
  const webhook = await profile.webhook(charge, 1, now);
  const url = new URL(values.url);
  for (const [name, value] of new URLSearchParams(webhook.query)) url.searchParams.set(name, value);
  if (psp === 'pagarme') {
    // Pagar.me signs nothing: the URL secret is all its receiver checks, so it is given once, with --secret.
    if (url.searchParams.has('secret'))
      throw new UsageError('--profile pagarme puts --secret in the URL: drop the secret parameter from --url and give it with --secret');
    url.searchParams.set('secret', values.secret!);
  }
  return {
    url: url.href,
    headers: webhook.headers,
    body: webhook.body,
    label: `${psp} ${status} webhook (${jsonText(charge.id)}, ${amountInCents} cents)`,
  };
}

/** True when the PSP's webhook needs `--secret` (or PIXHOOK_SECRET): every one but Woovi's (its --key signs). */
export const pspNeedsSecret = (psp: PspProfileName): boolean => psp !== 'woovi';

/**
 * Woovi's `--key`: a file named on the command line that cannot be read, or holds no RSA private key, is a usage
 * error (exit 2), never an unexpected one from OpenSSL. Its content is never echoed: it is a private key.
 */
function rsaPrivateKeyFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --key ${jsonText(path)}: ${String((error as { code?: unknown } | null)?.code ?? 'unreadable')}`);
  }
  let type: string | undefined;
  try {
    type = createPrivateKey(text).asymmetricKeyType;
  } catch {
    type = undefined;
  }
  if (type !== 'rsa') throw new UsageError(`--key ${jsonText(path)} holds no RSA private key (PEM): Woovi signs with RSA-SHA256`);
  return text;
}
