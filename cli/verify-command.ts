import { normalizeEvent, verifySignature, verifyTimestampedSignature } from '../src/index.js';
import { parseJson } from '../src/intake/read-body.js';
import { escapeControls } from '../src/shared/escape-controls.js';
import { parseCommandLine, runCommand, secretEnvHelp, secretFlagHelp, secretsFrom, UsageError } from './shared/cli-args.js';
import type { CommandHelp } from './shared/command-help.js';
import { signatureFlags, signatureFlagsHelp, signingFrom } from './shared/signature-flags.js';
import { jsonText } from './shared/json-text.js';
import { BodyTooLargeError, maxBodyBytesFrom, readBoundedFile, readBoundedStdin } from './shared/read-bounded-input.js';

export const verifyHelp: CommandHelp = {
  usage: 'verify --signature <header value> [flags] [file]',
  about: 'Checks a signature against the exact bytes of a body (from the file, else stdin): exit 0 valid, 1 invalid with the reason.',
  flags: [
    { flag: '--signature <v>', meaning: "the signature header's value, as the sender sent it (required)" },
    secretFlagHelp,
    { flag: '--max-body-bytes <n>', meaning: 'read at most this many bytes, 1–1073741824, as the receiver (default 1048576)' },
    ...signatureFlagsHelp,
  ],
  env: secretEnvHelp,
};

/**
 * Exit 0 when the signature matches the exact bytes, 1 (with the reason) otherwise — a body larger than
 * `--max-body-bytes` (the receiver's `maxBodyBytes`) too, after reading no more than that — 2 on a usage error.
 */
export function verifyCommand(argv: string[]): Promise<number> {
  return runCommand('verify', async () => {
    const { values, positionals } = parseCommandLine(
      argv,
      {
        secret: { type: 'string', multiple: true },
        signature: { type: 'string' },
        'max-body-bytes': { type: 'string' },
        ...signatureFlags,
      },
      true,
    );
    const secret = secretsFrom(values.secret);
    const scheme = signingFrom(values);
    if (values.signature === undefined)
      throw new UsageError('--signature <header value> is required (what the sender put in the signature header)');
    if (positionals.length > 1) throw new UsageError('verify takes one body file (or stdin)');
    const limit = maxBodyBytesFrom(values['max-body-bytes']);
    const file = positionals[0];
    let body: Uint8Array;
    try {
      body = file === undefined ? await readBoundedStdin(limit) : await readBoundedFile('body file', file, limit);
    } catch (error) {
      if (!(error instanceof BodyTooLargeError)) throw error;
      process.stderr.write(`invalid: ${error.code}: ${error.message}, the receiver's maxBodyBytes (--max-body-bytes raises it)\n`);
      return 1;
    }
    const input = { body, signature: values.signature, secret };
    const result = scheme.scheme === 'timestamped' ? await verifyTimestampedSignature(input) : await verifySignature(input);
    if (!result.ok) {
      process.stderr.write(
        escapeControls(`invalid: ${result.reason}: ${result.message}${result.hint ? ` Hint: ${result.hint}` : ''}`) + '\n',
      );
      return 1;
    }
    process.stdout.write(
      `valid: the signature matches ${body.byteLength} bytes${secret.length > 1 ? ` (secret #${result.secretIndex + 1})` : ''}${describeEvent(body)}\n`,
    );
    return 0;
  });
}

/** Names and ids come from the body: JSON-encoded, so they print on one line whatever they hold. */
function describeEvent(body: Uint8Array): string {
  const json = parseJson(body);
  if (!json.ok) return '; the body is not JSON';
  const normalized = normalizeEvent(json.value);
  if (!normalized.ok) return `; not a known event shape: ${jsonText(normalized.message)}`;
  const event = normalized.event;
  if (event.kind === 'unknown') return `; unknown event ${jsonText(event.name)}`;
  const resource = event.kind === 'transaction' ? event.transaction : event.transfer;
  return `; ${event.name} ${jsonText(resource.id)} ${jsonText(resource.status)} ${resource.amountInCents} cents (variant ${event.variant})`;
}
