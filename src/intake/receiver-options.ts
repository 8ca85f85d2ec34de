import type { InvalidDelivery, QuarantineStore } from '../dedupe/quarantine-store.js';
import type { Processing } from '../processing/create-processing.js';
import type { ProcessingOptions } from '../processing/processing-options.js';
import type { Logger } from '../shared/logger.js';
import type { Telemetry } from '../shared/telemetry.js';
import { positive } from '../shared/option-checks.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import { verifySignatureNow, type SignatureResult, type VerifySignatureInput } from '../signature/verify-signature.js';
import { verifyTimestampedSignature } from '../signature/verify-timestamped-signature.js';

/**
 * How deliveries are signed. Default: the interface's `X-Signature: sha256=<hex>`. A sibling brand
 * signs `t=<unix seconds>,v1=<hex of HMAC("t.body")>` in its own header: `{ scheme: 'timestamped',
 * header: 'vexy-signature' }`.
 */
export type SignatureOptions =
  | { scheme: 'sha256'; header?: string }
  | { scheme: 'timestamped'; header: string; toleranceSeconds?: number };

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

/** A receiver with its own processing (the options of `createProcessing`), or one sharing an existing `processing`. */
export type ReceiverOptions = IntakeOptions & (ProcessingOptions & { processing?: undefined } | { processing: Processing });

export interface ResolvedIntakeOptions {
  secrets: readonly string[];
  maxBodyBytes: number;
  retryAfterSeconds: number;
  signatureHeader: string;
  signatureScheme: SignatureOptions['scheme'];
  verify: (input: VerifySignatureInput) => SignatureResult | Promise<SignatureResult>;
}

export function resolveIntakeOptions(options: IntakeOptions): ResolvedIntakeOptions {
  const secrets = typeof options.secret === 'string' ? [options.secret] : [...(options.secret ?? [])];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s.trim() === '')) {
    throw new PixhookConfigError('pixhook: `secret` must be a non-empty string (or a list of them).');
  }
  return {
    secrets,
    maxBodyBytes: positive('maxBodyBytes', options.maxBodyBytes, 1024 * 1024),
    retryAfterSeconds: positive('retryAfterSeconds', options.retryAfterSeconds, 5),
    ...resolveSignature(options.signature),
  };
}

function resolveSignature(signature: SignatureOptions | undefined): Pick<ResolvedIntakeOptions, 'signatureHeader' | 'signatureScheme' | 'verify'> {
  if (signature === undefined || signature.scheme === 'sha256') {
    return { signatureHeader: (signature?.header ?? 'x-signature').toLowerCase(), signatureScheme: 'sha256', verify: verifySignatureNow };
  }
  if (signature.scheme !== 'timestamped' || typeof signature.header !== 'string' || signature.header === '') {
    throw new PixhookConfigError('pixhook: `signature` must be { scheme: "sha256" } or { scheme: "timestamped", header }.');
  }
  const toleranceSeconds = positive('signature.toleranceSeconds', signature.toleranceSeconds, 300);
  return {
    signatureHeader: signature.header.toLowerCase(),
    signatureScheme: 'timestamped',
    verify: (input) => verifyTimestampedSignature({ ...input, toleranceSeconds }),
  };
}
