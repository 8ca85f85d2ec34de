import { isPixEventName, pixEventNames } from '../src/index.js';
import { buildPayload, deliver, type DeliveryAttempt, type PayloadOptions } from '../src/testing/index.js';
import {
  flagBounds,
  integerFlag,
  parseCommandLine,
  retryFlags,
  retryFlagsHelp,
  retryFromFlags,
  runCommand,
  secretEnvHelp,
  secretFlagHelp,
  secretsFrom,
  UsageError,
} from './shared/cli-args.js';
import type { CommandHelp } from './shared/command-help.js';
import { signatureFlags, signatureFlagsHelp, signingFrom } from './shared/signature-flags.js';
import { jsonText } from './shared/json-text.js';
import { BodyTooLargeError, readBoundedFile } from './shared/read-bounded-input.js';
import { redactedUrl, redactedUrlsIn } from '../src/shared/redacted-url.js';
import { apiPixCallFrom, apiPixSendFlags, apiPixSendFlagsHelp, apiPixUrl } from './send-api-pix.js';
import { mtlsFetch, readMtlsFiles } from './shared/mtls-fetch.js';
import { apiPixRefusalHint, refusalHint } from './shared/refusal-hint.js';
import { capturingFetch, requestText } from './shared/print-request.js';
import { isPspProfileName, pspCallFrom, pspNeedsSecret, refusePspFlags } from './send-psp.js';

export const sendHelp: CommandHelp = {
  usage: 'send <event> --url <url> [flags]   (or: send --body <file> --url <url> [flags])',
  about: `Delivers one event to a URL as the gateway does: signed, retried with backoff. Events: ${pixEventNames.join(', ')}.`,
  flags: [
    { flag: '--url <url>', meaning: 'the receiver to deliver to, http or https (required)' },
    secretFlagHelp,
    { flag: '--variant <v>', meaning: 'the payload shape: a, b or short (default a)' },
    { flag: '--id <id>', meaning: 'the charge or transfer id (default: a generated one)' },
    { flag: '--amount <cents>', meaning: 'the amount in cents, an integer ≥ 0: 1990 is R$ 19,90 (default: the sample amount)' },
    { flag: '--status <s>', meaning: "the resource's status (default: the event's own, e.g. paid)" },
    { flag: '--seed <n>', meaning: 'an integer ≥ 0 that makes the generated ids repeatable (default: random)' },
    { flag: '--body <file>', meaning: 'send this file byte for byte instead of a generated event' },
    ...retryFlagsHelp({ attempts: 5, delayMs: 1_000 }),
    { flag: '--timeout-ms <n>', meaning: 'an attempt with no answer by then fails, 1–86400000 ms (default 10000)' },
    ...signatureFlagsHelp,
    {
      flag: '--print',
      meaning:
        'print the signed request (method, URL, headers, a blank line, the body) instead of sending it; credentials in the URL and headers masked',
    },
    ...apiPixSendFlagsHelp,
  ],
  env: secretEnvHelp,
};

// A --body file is read up to this size: well above any receiver's default (1 MiB), to test its 413.
const maxSendBytes = 64 * 1024 * 1024;

/**
 * Delivers one event to a URL exactly as the gateway would: signed, retried with exponential backoff.
 * One line per attempt, then a summary; exit 0 when delivered, 1 when every attempt failed.
 */
export function sendCommand(argv: string[]): Promise<number> {
  return runCommand('send', async () => {
    const { values, positionals } = parseCommandLine(
      argv,
      {
        url: { type: 'string' },
        secret: { type: 'string' },
        variant: { type: 'string' },
        id: { type: 'string' },
        amount: { type: 'string' },
        status: { type: 'string' },
        body: { type: 'string' },
        ...retryFlags,
        attempts: { type: 'string', default: '5' },
        'timeout-ms': { type: 'string', default: '10000' },
        seed: { type: 'string' },
        ...signatureFlags,
        ...apiPixSendFlags,
        print: { type: 'boolean', default: false },
      },
      true,
    );
    if (positionals.length > 1) throw new UsageError(`one event name expected, got: ${jsonText(positionals)}`);
    const psp = isPspProfileName(values.profile) ? values.profile : undefined;
    const apiPix = psp === undefined && profileFrom(values.profile) === 'api-pix';
    const tls = readMtlsFiles({ cert: values.cert, key: psp === undefined ? values.key : undefined, ca: values.cacert });
    if (psp !== undefined) refusePspFlags(psp, values, positionals);
    else if (!apiPix) refuseApiPixFlags(values);
    else refuseGatewayFlags(values, positionals);
    // API Pix has no signature: mTLS authenticates, or (without a client certificate) the secret in the URL.
    const noSecret = (apiPix && tls?.cert !== undefined) || (psp !== undefined && !pspNeedsSecret(psp));
    const secrets = noSecret && values.secret === undefined ? [] : secretsFrom(values.secret);
    if (secrets.length > 1) throw new UsageError('send signs with one secret: give --secret once');
    const secret = secrets[0];
    const pspCall =
      psp === undefined
        ? undefined
        : await pspCallFrom(psp, {
            url: urlFrom(values.url),
            secret,
            key: values.key,
            id: values.id,
            amountInCents: values.amount === undefined ? undefined : centsFrom(values.amount),
            status: values.status,
          });
    const target = targetFrom(pspCall?.url ?? (apiPix ? apiPixUrl(urlFrom(values.url), secret) : values.url));
    const signing = signingFrom(values);
    const retry = retryFromFlags(values);
    const attempts = retry.attempts ?? 5;
    const timeoutMs = integerFlag('--timeout-ms', values['timeout-ms'], flagBounds.timeoutMs);

    let body: Uint8Array | object | string;
    let label: string;
    if (pspCall !== undefined) ({ body, label } = pspCall);
    else if (apiPix && values.body === undefined) {
      ({ body, label } = apiPixCallFrom({
        count: values.count,
        shape: values.shape,
        refund: values.refund,
        txid: values.txid,
        chave: values.chave,
        id: values.id,
        amount: values.amount === undefined ? undefined : centsFrom(values.amount),
        seed: values.seed === undefined ? undefined : integerFrom('--seed', values.seed, 0),
      }));
    } else if (values.body !== undefined) {
      const conflicting = (['variant', 'id', 'amount', 'status', 'seed', 'count', 'shape', 'refund', 'txid', 'chave'] as const).filter(
        (k) => values[k] !== undefined,
      );
      if (conflicting.length > 0) throw new UsageError(`--body sends the file as it is; drop --${conflicting.join(', --')}`);
      try {
        body = await readBoundedFile('--body', values.body, maxSendBytes);
      } catch (error) {
        if (!(error instanceof BodyTooLargeError)) throw error;
        process.stderr.write(`pixhook: ${error.code}: ${error.message}\n`);
        return 1;
      }
      label = describeBody(body as Uint8Array, values.body);
    } else {
      const name = positionals[0];
      if (name === undefined) throw new UsageError('which event? e.g. pixhook send transaction_paid (or --body <file>)');
      if (!isPixEventName(name)) throw new UsageError(`unknown event ${jsonText(name)}; one of: ${pixEventNames.join(', ')}`);
      const variant = values.variant ?? 'a';
      if (variant !== 'a' && variant !== 'b' && variant !== 'short')
        throw new UsageError(`--variant must be a, b or short, got ${jsonText(variant)}`);
      const options: PayloadOptions = { variant };
      if (values.id !== undefined) options.id = values.id;
      if (values.amount !== undefined) options.amountInCents = centsFrom(values.amount);
      if (values.status !== undefined) options.status = values.status;
      if (values.seed !== undefined) options.seed = integerFrom('--seed', values.seed, 0);
      body = buildPayload(name, options);
      const resource = (body as Record<string, { id: string; status: string }>)[
        variant === 'a' ? 'data' : name.startsWith('transfer_') ? 'transfer' : 'transaction'
      ];
      // --id and --status are printed JSON-escaped: a newline or an escape in them cannot forge a line.
      label = `${name} (variant ${variant}, ${jsonText(resource?.id)}, ${jsonText(resource?.status)})`;
    }

    // A PSP's request is signed by its profile (its own headers); only the gateway's is signed here.
    const headers = { ...target.headers, ...pspCall?.headers };
    const unsigned = apiPix || psp !== undefined;
    if (values.print)
      return printRequest({ url: target, headers, body, ...(unsigned ? { signature: null } : { secret: secret!, signing }) });
    process.stdout.write(`sending ${label} to ${jsonText(target.shown)}\n`);
    const mtls = tls === undefined ? undefined : mtlsFetch(tls);
    const unreachable = unreachableWatch(mtls?.fetch ?? fetch);
    const result = await deliver({
      fetch: unreachable.fetch,
      // No retry fixes a refused signature: a wrong secret would cost the whole backoff (15 s) for nothing.
      giveUp: (attempt) => unreachable.why !== undefined || isRefusal(attempt.status),
      url: target.url,
      headers,
      body,
      ...(unsigned ? { signature: null } : { secret: secret!, signing }),
      retry,
      timeoutMs,
      onAttempt: (attempt) => process.stdout.write(`${attemptLine(attempt, attempts)}\n`),
    }).finally(() => mtls?.close());
    const total = result.attempts.reduce((sum, a) => sum + a.durationMs + (a.retryInMs ?? 0), 0);
    const tried = result.attempts.length;
    if (result.delivered) {
      process.stdout.write(
        `delivered: ${result.finalStatus} after ${tried} of ${attempts} attempt${attempts === 1 ? '' : 's'} (${ms(total)})\n`,
      );
      return 0;
    }
    const last =
      result.finalStatus === undefined
        ? jsonText(redactedUrlsIn(result.attempts[tried - 1]?.error ?? 'unknown'))
        : `status ${result.finalStatus}`;
    if (unreachable.why !== undefined) {
      process.stderr.write(`${unreachableLine(unreachable.why, target.shown)}\n`);
      return 1;
    }
    if (isRefusal(result.finalStatus)) {
      process.stdout.write(`not delivered: ${last}, not retried (${ms(total)})\n`);
      process.stderr.write(
        `${apiPix ? apiPixRefusalHint(result.finalStatus!, target.shown, result.attempts[tried - 1]?.responseBody) : refusalHint(result.finalStatus!, target.shown)}\n`,
      );
      return 1;
    }
    process.stdout.write(`not delivered: all ${tried} attempt${tried === 1 ? '' : 's'} failed (last: ${last}; ${ms(total)})\n`);
    return 1;
  });
}

/** `attempt 2/5  500 handler_failed  12.3 ms  2026-…Z  retry in 2000 ms` */
export function attemptLine(attempt: DeliveryAttempt, of: number): string {
  const answer =
    attempt.status === undefined
      ? `error ${jsonText(redactedUrlsIn(attempt.error ?? 'unknown'))}`
      : `${attempt.status}${reasonOf(attempt.responseBody)}`;
  const retry = attempt.retryInMs === undefined ? '' : `  retry in ${attempt.retryInMs} ms`;
  return `attempt ${attempt.attempt}/${of}  ${answer}  ${ms(attempt.durationMs)}  ${attempt.at}${retry}`;
}

// pixhook receivers answer `{"error":"<reason>"}` or `{"ok":true,"reason":"duplicate"}`; show that reason.
function reasonOf(body: string | undefined): string {
  if (!body) return '';
  try {
    const json = JSON.parse(body) as { error?: unknown; reason?: unknown };
    const reason = typeof json.error === 'string' ? json.error : json.reason;
    // The receiver's words: JSON-encoded unless they are a plain reason code.
    return typeof reason === 'string' ? ` ${/^[a-z_]+$/.test(reason) ? reason : jsonText(reason)}` : '';
  } catch {
    return '';
  }
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

/**
 * The URL to fetch, and its credentials as HTTP Basic auth, as curl does (fetch refuses a URL that
 * holds them, and would print the password in its error).
 */
function targetFrom(value: string | undefined): { url: string; shown: string; headers: Record<string, string> } {
  const url = new URL(urlFrom(value));
  const shown = redactedUrl(url.href);
  if (url.username === '' && url.password === '') return { url: url.href, shown, headers: {} };
  const credentials = `${decoded(url.username)}:${decoded(url.password)}`;
  url.username = '';
  url.password = '';
  return { url: url.href, shown, headers: { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` } };
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function urlFrom(value: string | undefined): string {
  if (value === undefined) throw new UsageError('--url <url> is required (the receiver to deliver to)');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--url is not a URL: ${jsonText(redactedUrl(value))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--url must be http or https, got ${jsonText(url.protocol)}`);
  return url.href;
}

// Nothing listens at the URL: one quick retry (a receiver still starting), then give up instead of backing off for 15 s.
const refusedRetryMs = 250;

type Unreachable = 'refused' | 'blocked port';

/** A `fetch` that notes why the URL cannot be reached: a refused connection (after one quick retry), or a port fetch never opens (9, 25, …). */
function unreachableWatch(send: typeof globalThis.fetch): { fetch: typeof globalThis.fetch; readonly why: Unreachable | undefined } {
  let why: Unreachable | undefined;
  const cause = (error: unknown): Unreachable | undefined => {
    const inner = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
    if (inner?.code === 'ECONNREFUSED') return 'refused';
    return inner?.message === 'bad port' ? 'blocked port' : undefined;
  };
  return {
    get why() {
      return why;
    },
    fetch: async (input, init) => {
      try {
        return await send(input, init);
      } catch (error) {
        why = cause(error);
        if (why !== 'refused') throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, refusedRetryMs));
      try {
        const response = await send(input, init);
        why = undefined;
        return response;
      } catch (error) {
        why = cause(error);
        throw error;
      }
    },
  };
}

/** 401 and 403: the receiver refuses the signature or the caller; sending the same bytes again changes nothing. */
function isRefusal(status: number | undefined): boolean {
  return status === 401 || status === 403;
}

function unreachableLine(why: Unreachable, shown: string): string {
  const port = new URL(shown).port;
  return why === 'refused'
    ? `pixhook: not delivered: connection refused (tried twice): is the receiver running at ${shown}?`
    : `pixhook: not delivered: fetch never connects to port ${port} (a blocked port): is the receiver running at ${shown}? Give it another port.`;
}

function profileFrom(value: string): 'gateway' | 'api-pix' {
  if (value !== 'gateway' && value !== 'api-pix')
    throw new UsageError(`--profile must be gateway, api-pix, mercado-pago, asaas, pagbank, woovi or pagarme, got ${jsonText(value)}`);
  return value;
}

function refuseApiPixFlags(values: Record<string, unknown>): void {
  const given = (['count', 'shape', 'refund', 'txid', 'chave', 'cert', 'key'] as const).filter((k) => values[k] !== undefined);
  if (given.length > 0) throw new UsageError(`--${given.join(', --')} apply to --profile api-pix only`);
}

function refuseGatewayFlags(values: Record<string, unknown>, positionals: string[]): void {
  if (positionals.length > 0)
    throw new UsageError(`--profile api-pix sends a standard call, not an event: drop ${jsonText(positionals[0])} (see --refund, --count)`);
  const given = (['variant', 'status', 'signature-header'] as const).filter((k) => values[k] !== undefined);
  if (given.length > 0) throw new UsageError(`--profile api-pix is not signed and has no variants: drop --${given.join(', --')}`);
}

function centsFrom(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n))
    throw new UsageError(`\`--amount\` is in cents: an integer, e.g. 1990 for R$ 19,90 (got ${jsonText(value)})`);
  return n;
}

function integerFrom(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min)
    throw new UsageError(`${flag} must be an integer ≥ ${min}, got ${jsonText(value)}`);
  return n;
}

function describeBody(bytes: Uint8Array, path: string): string {
  try {
    const json = JSON.parse(new TextDecoder().decode(bytes)) as { event?: unknown };
    if (typeof json.event === 'string') return `${jsonText(json.event)} from ${jsonText(path)} (${bytes.byteLength} bytes)`;
  } catch {
    // Not JSON: still sent, byte for byte (useful to test json_invalid).
  }
  return `${jsonText(path)} (${bytes.byteLength} bytes)`;
}

/** `--print`: the request `deliver` makes, captured instead of sent (one attempt, nothing on the network). */
async function printRequest(input: {
  url: { url: string; shown: string };
  headers: Record<string, string>;
  body: Uint8Array | object | string;
  secret?: string;
  signing?: ReturnType<typeof signingFrom>;
  signature?: null;
}): Promise<number> {
  const capture = capturingFetch();
  await deliver({
    fetch: capture.fetch,
    url: input.url.url,
    headers: input.headers,
    body: input.body,
    ...(input.signature === null ? { signature: null } : { secret: input.secret!, signing: input.signing! }),
    retry: { attempts: 1 },
  });
  process.stdout.write(requestText(capture.captured()!, input.url.shown));
  return 0;
}
