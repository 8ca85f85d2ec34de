import { readFile } from 'node:fs/promises';
import { buffer } from 'node:stream/consumers';
import { normalizeEvent } from '../src/events/normalize-event.js';
import { parseJson } from '../src/intake/parse-json.js';
import { verifySignature } from '../src/signature/verify-signature.js';
import { parseCommandLine, runCommand, secretsFrom, UsageError } from './cli-args.js';

const usage = 'verify --secret <s> --signature <sha256=…> [file]   (body from the file or stdin)';

/** Exit 0 when the signature matches the exact bytes, 1 (with the reason) otherwise. */
export function verifyCommand(argv: string[]): Promise<number> {
  return runCommand(usage, async () => {
    const { values, positionals } = parseCommandLine(
      argv,
      { secret: { type: 'string', multiple: true }, signature: { type: 'string' } },
      true,
    );
    const secret = secretsFrom(values.secret);
    if (positionals.length > 1) throw new UsageError('verify takes one body file (or stdin)');
    const file = positionals[0];
    const body = file === undefined ? await readStdin() : new Uint8Array(await readFile(file));
    const result = await verifySignature({ body, signature: values.signature, secret });
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

function describeEvent(body: Uint8Array): string {
  const json = parseJson(body);
  if (!json.ok) return '; the body is not JSON';
  const normalized = normalizeEvent(json.value);
  if (!normalized.ok) return `; not a known event shape: ${normalized.message}`;
  const event = normalized.event;
  if (event.kind === 'unknown') return `; unknown event "${event.name}"`;
  const resource = event.kind === 'transaction' ? event.transaction : event.transfer;
  return `; ${event.name} ${resource.id} ${resource.status} ${resource.amountInCents} cents (variant ${event.variant})`;
}
