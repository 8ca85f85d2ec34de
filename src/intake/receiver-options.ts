import type { InvalidDelivery, QuarantineStore } from '../dedupe/quarantine-store.js';
import type { Processing } from '../processing/create-processing.js';
import { processingOptionNames, type ProcessingOptions } from '../processing/processing-options.js';
import type { Logger } from '../shared/logger.js';
import type { Telemetry } from '../shared/telemetry.js';
import { checkSecrets, optionalNumber } from '../shared/option-checks.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import { verifyCheckedSecret, type SignatureResult, type VerifySignatureInput } from '../signature/verify-signature.js';
import { verifyCheckedTimestamped } from '../signature/verify-timestamped-signature.js';

/**
 * How deliveries are signed. Default: the interface's `X-Signature: sha256=<hex>`. A sibling brand
 * signs `t=<unix seconds>,v1=<hex of HMAC("t.body")>` in its own header: `{ scheme: 'timestamped',
 * header: 'vexy-signature' }`.
 */
export type SignatureOptions = { scheme: 'sha256'; header?: string } | { scheme: 'timestamped'; header: string; toleranceSeconds?: number };

export type InvalidHandler = (delivery: InvalidDelivery) => void | Promise<void>;

interface IntakeOptions {
  /** The webhook secret, or several while rotating (any one may match). */
  secret: string | readonly string[];
  /** Signature scheme and header. Default `{ scheme: 'sha256', header: 'x-signature' }`. */
  signature?: SignatureOptions;
  /** Larger bodies get 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** `Retry-After` on 503 answers, in seconds. Default 5. */
  retryAfterSeconds?: number;
  /** Gets every verified body that is not JSON or misses an essential (the answer stays 400). */
  onInvalid?: InvalidHandler;
  /** Where such bodies are kept for a replay. Default: the store's own (Redis stores have one); `false` for none. */
  quarantine?: QuarantineStore | false;
  logger?: Logger;
  /** Spans and metrics (see `pixhook/otel`); shared with the processing this receiver creates. */
  telemetry?: Telemetry;
}

/** A receiver with its own processing (the options of `createProcessing`), or one sharing an existing `processing` (its options then go there). */
export type ReceiverOptions = IntakeOptions &
  (
    | (ProcessingOptions & { processing?: undefined })
    | ({ processing: Processing } & { [K in (typeof processingOptionNames)[number]]?: undefined })
  );

const receiverOptionNames = optionNames<ReceiverOptions>()([
  'secret',
  'signature',
  'maxBodyBytes',
  'retryAfterSeconds',
  'onInvalid',
  'quarantine',
  'logger',
  'telemetry',
  'processing',
  ...processingOptionNames,
]);
const signatureOptionNames = optionNames<SignatureOptions>()(['scheme', 'header', 'toleranceSeconds']);

const maxBodyBytesLimit = 1024 * 1024 * 1024;

export interface ResolvedIntakeOptions {
  secrets: readonly string[];
  maxBodyBytes: number;
  retryAfterSeconds: number;
  signatureHeader: string;
  signatureScheme: SignatureOptions['scheme'];
  verify: (input: VerifySignatureInput) => SignatureResult | Promise<SignatureResult>;
}

export function resolveIntakeOptions(options: ReceiverOptions): ResolvedIntakeOptions {
  refuseUnknownOptions(options, receiverOptionNames, 'createReceiver');
  refuseUnknownOptions(options.signature, signatureOptionNames, 'createReceiver', 'signature.');
  // Checked once here: the verifier then skips the check on every delivery.
  const secrets = [...checkSecrets('secret', options.secret)];
  const resolved = {
    secrets,
    maxBodyBytes: optionalNumber('maxBodyBytes', options.maxBodyBytes, 1024 * 1024, { min: 1, max: maxBodyBytesLimit, note: '(1 GiB)' }),
    // Retry-After carries whole seconds.
    retryAfterSeconds: optionalNumber('retryAfterSeconds', options.retryAfterSeconds, 5, { min: 1, max: 86_400, note: '(24 h)' }),
    ...resolveSignature(options.signature),
  };
  return resolved;
}

/** With a shared `processing`, the processing options belong to it: given to the receiver too, they would be ignored. */
export function refuseIgnoredWithProcessing(options: object): void {
  const given = processingOptionNames.filter((name) => (options as Record<string, unknown>)[name] !== undefined);
  if (given.length === 0) return;
  const names = given.map((name) => `\`${name}\``).join(', ');
  throw new PixhookConfigError(
    `pixhook: ${names} ${given.length === 1 ? 'is' : 'are'} ignored when \`processing\` is given (it runs events as createProcessing was told); pass ${given.length === 1 ? 'it' : 'them'} to createProcessing instead.`,
  );
}

function resolveSignature(
  signature: SignatureOptions | undefined,
): Pick<ResolvedIntakeOptions, 'signatureHeader' | 'signatureScheme' | 'verify'> {
  if (signature === undefined || signature.scheme === 'sha256') {
    if ((signature as { toleranceSeconds?: unknown } | undefined)?.toleranceSeconds !== undefined) {
      throw new PixhookConfigError(
        'pixhook: `signature.toleranceSeconds` applies to the timestamped scheme only; the sha256 scheme carries no timestamp.',
      );
    }
    return { signatureHeader: (signature?.header ?? 'x-signature').toLowerCase(), signatureScheme: 'sha256', verify: verifyCheckedSecret };
  }
  if (signature.scheme !== 'timestamped' || typeof signature.header !== 'string' || signature.header === '') {
    throw new PixhookConfigError('pixhook: `signature` must be { scheme: "sha256" } or { scheme: "timestamped", header }.');
  }
  const toleranceSeconds = optionalNumber('signature.toleranceSeconds', signature.toleranceSeconds, 300, {
    min: 1,
    max: 86_400,
    note: '(24 h)',
  });
  return {
    signatureHeader: signature.header.toLowerCase(),
    signatureScheme: 'timestamped',
    verify: (input) => verifyCheckedTimestamped({ ...input, toleranceSeconds }),
  };
}
