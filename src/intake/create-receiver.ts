import type { QuarantineStore } from '../dedupe/quarantine-store.js';
import type { PixEvent, UnknownEvent } from '../events/event-types.js';
import { createAnswerMetrics } from '../metrics/receiver-metrics.js';
import { buildProcessing } from '../processing/create-processing.js';
import { describeError } from '../shared/describe-error.js';
import { guardLogger, silentLogger, withTraceFields, type Logger } from '../shared/logger.js';
import { withTimeout } from '../shared/with-timeout.js';
import { gatewaySource } from '../sources/gateway/source.js';
import { keepInvalid } from './keep-invalid.js';
import { logAnswer, logFields } from './log-fields.js';
import { createAnswers, type ReceiveResult } from './receive-answer.js';
import { refuseIgnoredWithProcessing, resolveIntakeOptions, type InvalidHandler, type ReceiverOptions } from './receiver-options.js';
import { receiverOver } from './receiver-over.js';
import type { Receiver } from './receiver-types.js';
import type { SourceKeeper } from './source-pipeline.js';

export type { Receiver, ReceiveRequest } from './receiver-types.js';

const keepInvalidTimeoutMs = 2_000;

/**
 * The gateway's receiver (`pix-service-interface.md`): its options resolved (secrets, signature scheme, limits),
 * the gateway as a source (`src/sources/gateway/`), then the one source pipeline every receiver runs
 * (`receiverOver`): method → bytes (hashed as they arrive) → signature → JSON → normalize → processing → answer.
 * A verified body it cannot read is kept (`onInvalid`, the quarantine) and answered 400.
 */
export function createReceiver(options: ReceiverOptions): Receiver {
  const config = resolveIntakeOptions(options);
  if (options.processing) refuseIgnoredWithProcessing(options);
  // Its options were checked whole (resolveIntakeOptions): the processing is built from them without a second check.
  const processing = options.processing ?? buildProcessing(options);
  const telemetry = options.telemetry;
  const log: Logger = withTraceFields(guardLogger(options.logger), telemetry);
  const answers = createAnswerMetrics();
  const invalidHandlers: InvalidHandler[] = options.onInvalid ? [options.onInvalid] : [];
  // The store's own quarantine is the processing's, whether the receiver made it or was given it.
  const quarantine: QuarantineStore | undefined = options.quarantine === false ? undefined : (options.quarantine ?? processing.quarantine);
  const source = gatewaySource({
    secrets: config.secrets,
    signatureHeader: config.signatureHeader,
    scheme: config.signatureScheme,
    verify: config.verify,
  });

  const reportInvalidFailure = (error: unknown, where: string): void =>
    log.error({ error: describeError(error) }, `pixhook: ${where} failed for an invalid delivery`);
  const keep: SourceKeeper = {
    // Bounded: keeping the body must not hold the answer past the sender's patience.
    whole: (delivery, reason, detail) => {
      answers.invalid();
      const work = keepInvalid({
        reason,
        detail,
        bytes: delivery.bytes,
        headers: delivery.request.headers,
        json: delivery.json,
        handlers: invalidHandlers,
        quarantine,
        log,
        report: reportInvalidFailure,
      });
      return withTimeout(work, keepInvalidTimeoutMs, 'keeping an invalid delivery').catch((error: unknown) =>
        reportInvalidFailure(error, 'onInvalid or the quarantine'),
      );
    },
    // A gateway body is one event: it has no unreadable items beside readable ones.
    items: () => Promise.resolve(true),
  };

  function report(result: ReceiveResult, ms: number): void {
    // The default logger drops everything: skip building its fields on every delivery.
    if (log !== silentLogger) logAnswer(log, result, logFields(result, ms), 'pixhook: delivery');
  }

  function onRead(event: PixEvent | UnknownEvent): void {
    if (event.kind !== 'unknown' && event.warnings.length > 0)
      log.warn({ event: event.name, warnings: event.warnings }, 'pixhook: fields of an unexpected type were left out of the typed event');
  }

  return receiverOver(source, {
    processing,
    ownsProcessing: !options.processing,
    invalidHandlers,
    answers,
    answer: createAnswers(config.retryAfterSeconds),
    keep,
    maxBodyBytes: config.maxBodyBytes,
    fetchTimeoutMs: 0,
    report,
    // Only a logger that writes needs to hear of each event as read.
    ...(log !== silentLogger && { onRead }),
    telemetry,
  });
}
