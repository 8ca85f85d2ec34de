import type { QuarantineStore } from '../../dedupe/quarantine-store.js';
import type { Receiver } from '../../intake/create-receiver.js';
import { createAnswers, type ReceiveResult } from '../../intake/receive-answer.js';
import { refuseIgnoredWithProcessing, type InvalidHandler } from '../../intake/receiver-options.js';
import { receiverOver } from '../../intake/receiver-over.js';
import type { SourceDelivery } from '../../intake/source-delivery.js';
import { logAnswer, logFields } from '../../intake/log-fields.js';
import { deliveryProcessingOf } from '../../processing/delivery-context.js';
import { createAnswerMetrics } from '../../metrics/receiver-metrics.js';
import { buildProcessing, type Processing } from '../../processing/create-processing.js';
import { allProcessingOptionNames, type ProcessingOptions } from '../../processing/processing-options.js';
import { optionNames, refuseUnknownOptions } from '../../shared/known-options.js';
import { guardLogger, silentLogger, type Logger } from '../../shared/logger.js';
import { optionalNumber } from '../../shared/option-checks.js';
import { PixhookConfigError } from '../../shared/pixhook-error.js';
import { reasonGroup, type ReasonCode } from '../../shared/reasons.js';
import { resolveAuth, type ApiPixAuth } from '../../sources/api-pix/api-pix-auth.js';
import { resolveKeys } from '../../sources/api-pix/receiving-keys.js';
import { apiPixSource } from '../../sources/api-pix/source.js';
import { createInvalidKeeper } from './keep-invalid.js';
import { createRefusalWarnings } from './refusal-warnings.js';

interface ApiPixIntakeOptions {
  /** How the PSP's calls are authenticated (required; exactly one mode). */
  auth: ApiPixAuth;
  /**
   * The merchant's receiving keys (`chave`). When given, a Pix to any other key (or naming none) is never
   * dispatched: the payment book holds it as `unknown_key`, or, without a `book`, it is kept in the
   * quarantine and reported to `onInvalid`.
   */
  keys?: readonly string[];
  /** Larger bodies get 413. Default 1 MiB (a 50-item batch is about 25 KiB). */
  maxBodyBytes?: number;
  /** `Retry-After` on 503 answers, in seconds. Default 5. */
  retryAfterSeconds?: number;
  /** Gets every call (or item of a call) that cannot be read as an event, with the call's exact bytes. */
  onInvalid?: InvalidHandler;
  /** Where such calls are kept for a replay. Default: the store's own; `false` for none. */
  quarantine?: QuarantineStore | false;
  logger?: Logger;
}

/** `createApiPixReceiver`'s options: the intake's, then the processing's (or a shared `processing`), as `createReceiver`. */
export type ApiPixReceiverOptions = ApiPixIntakeOptions &
  ((ProcessingOptions & { processing?: undefined }) | ({ processing: Processing } & { [K in keyof ProcessingOptions]?: undefined }));

const apiPixReceiverOptionNames = [
  'processing',
  ...optionNames<ApiPixIntakeOptions>()(['auth', 'keys', 'maxBodyBytes', 'retryAfterSeconds', 'onInvalid', 'quarantine', 'logger']),
  ...allProcessingOptionNames.filter((name) => name !== 'telemetry'),
];

const notHere = ['secret', 'signature', 'telemetry'] as const;

/** Who-is-calling refusals (401 / 403): the ones an operator must see once, not per call. */
const isRefusal = (reason: ReasonCode): boolean => reasonGroup(reason) === 'signature';

/**
 * A receiver for the Central Bank's standard API Pix webhooks (bacen/pix-api): `{webhookUrl}/pix`,
 * `/rec` and `/cobr`. It is a `Receiver`: every adapter serves it unchanged. Each item of a call is its
 * own event with its own claim, book step and handlers; the call is answered 200 once every item was
 * handled, accepted, or (unreadable) kept in the quarantine, and a PSP's retry of the whole call re-runs
 * only what was not done.
 */
export function createApiPixReceiver(options: ApiPixReceiverOptions): Receiver {
  if (typeof options !== 'object' || options === null)
    throw new PixhookConfigError('pixhook: `options` of createApiPixReceiver must be an object with `auth`.');
  for (const name of notHere) {
    if ((options as unknown as Record<string, unknown>)[name] !== undefined)
      throw new PixhookConfigError(
        `pixhook: \`${name}\` does not apply to createApiPixReceiver: the standard API Pix is not signed; set \`auth\` (mtls, proxy or urlSecret).`,
      );
  }
  refuseUnknownOptions(options, apiPixReceiverOptionNames, 'createApiPixReceiver');
  const auth = resolveAuth(options.auth);
  const keys = resolveKeys(options.keys);
  const maxBodyBytes = optionalNumber('maxBodyBytes', options.maxBodyBytes, 1024 * 1024, {
    min: 1,
    max: 1024 * 1024 * 1024,
    note: '(1 GiB)',
  });
  const retryAfterSeconds = optionalNumber('retryAfterSeconds', options.retryAfterSeconds, 5, { min: 1, max: 86_400, note: '(24 h)' });
  if (options.onInvalid !== undefined && typeof options.onInvalid !== 'function')
    throw new PixhookConfigError('pixhook: `onInvalid` must be a function.');
  if (options.processing) refuseIgnoredWithProcessing(options);
  // Its options were checked whole above: the processing is built from them without a second check.
  const processing = options.processing ?? buildProcessing(options as ProcessingOptions);
  const log: Logger = guardLogger(options.logger);
  const warnRefusal = createRefusalWarnings(options.logger);
  const keyList = keys === undefined ? '' : [...keys].slice(0, 5).join(', ') + (keys.size > 5 ? ', …' : '');
  const answers = createAnswerMetrics();
  const invalidHandlers: InvalidHandler[] = options.onInvalid ? [options.onInvalid] : [];
  const quarantine: QuarantineStore | undefined = options.quarantine === false ? undefined : (options.quarantine ?? processing.quarantine);
  const held = deliveryProcessingOf(processing).hasBook;
  const source = apiPixSource({
    auth,
    keys,
    held,
    unknownKey: (seen, head) =>
      warnRefusal({
        reason: 'unknown_key',
        peer: head.peer?.address,
        hint: `the Pix is to ${seen === undefined ? 'no key' : `key ${seen}`}, not one of keys (${keyList}); ${held ? 'held by the book as unknown_key' : 'kept in the quarantine and given to onInvalid'}`,
      }),
  });

  function report(result: ReceiveResult, ms: number, call: SourceDelivery): void {
    if (result.reason !== undefined && isRefusal(result.reason)) {
      // One warning per reason per window, with the peer and the real cause, instead of a line per call.
      warnRefusal({ reason: result.reason, peer: call.request.peer?.address, hint: result.hint ?? '' });
      return;
    }
    if (log === silentLogger) return;
    const fields = { ...logFields(result, ms), ...(call.outcomes.length > 1 && { items: call.outcomes.length }) };
    logAnswer(log, result, fields, 'pixhook: API Pix call');
  }

  return receiverOver(source, {
    processing,
    ownsProcessing: !options.processing,
    invalidHandlers,
    answers,
    answer: createAnswers(retryAfterSeconds),
    keep: createInvalidKeeper({ log, counted: () => answers.invalid(), handlers: invalidHandlers, quarantine }),
    maxBodyBytes,
    fetchTimeoutMs: 0,
    report,
  });
}
