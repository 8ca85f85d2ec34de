import { buffer } from 'node:stream/consumers';
import { normalizeEvent, verifySignature, verifyTimestampedSignature } from '../src/index.js';
import { parseJson } from '../src/intake/parse-json.js';
import { parseCommandLine, readInputFile, runCommand, secretsFrom, UsageError } from './cli-args.js';
import { signatureFlags, signingFrom } from './shared/signature-flags.js';
import { jsonText } from './shared/json-text.js';

const usage =
  'verify --secret <s> [--secret <s2>] --signature <header value> [--signature-scheme sha256|timestamped --signature-header <name>] [file]   (body from the file or stdin)';

/** Exit 0 when the signature matches the exact bytes, 1 (with the reason) otherwise, 2 on a usage error. */
export function verifyCommand(argv: string[]): Promise<number> {
  return runCommand(usage, async () => {
    const { values, positionals } = parseCommandLine(
      argv,
      { secret: { type: 'string', multiple: true }, signature: { type: 'string' }, ...signatureFlags },
      true,
    );
    const secret = secretsFrom(values.secret);
    const scheme = signingFrom(values);
    if (values.signature === undefined) throw new UsageError('--signature <header value> is required (what the sender put in the signature header)');
    if (positionals.length > 1) throw new UsageError('verify takes one body file (or stdin)');
    const file = positionals[0];
    const body = file === undefined ? await readStdin() : await readInputFile('body file', file);
    const input = { body, signature: values.signature, secret };
    const result = scheme.scheme === 'timestamped' ? await verifyTimestampedSignature(input) : await verifySignature(input);
    if (!result.ok) {
      process.stderr.write(`invalid: ${result.reason}: ${result.message}${result.hint ? ` Hint: ${result.hint}` : ''}\n`);
      return 1;
    }
    process.stdout.write(`valid: the signature matches ${body.byteLength} bytes${secret.length > 1 ? ` (secret #${result.secretIndex + 1})` : ''}${describeEvent(body)}\n`);
    return 0;
  });
}

async function readStdin(): Promise<Uint8Array> {
  return new Uint8Array(await buffer(process.stdin));
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
