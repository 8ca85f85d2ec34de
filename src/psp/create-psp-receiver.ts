import type { QuarantineStore } from '../dedupe/quarantine-store.js';
import { createAnswers, type ReceiveResult } from '../intake/receive-answer.js';
import { refuseIgnoredWithProcessing, type InvalidHandler } from '../intake/receiver-options.js';
import type { Receiver } from '../intake/receiver-types.js';
import { receiverOver } from '../intake/receiver-over.js';
import { logAnswer, logFields } from '../intake/log-fields.js';
import { createAnswerMetrics } from '../metrics/receiver-metrics.js';
import { buildProcessing } from '../processing/create-processing.js';
import type { ProcessingOptions } from '../processing/processing-options.js';
import { guardLogger, silentLogger, type Logger } from '../shared/logger.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import { sourceRegistry, type PspSourceOptions } from '../sources/registry.js';
import type { Source } from '../sources/source.js';
import { createPspKeeper } from './keep-psp-body.js';
import { resolvePspIntake, type PspReceiverOptions } from './psp-options.js';

/**
 * A receiver for one PSP's own Pix webhooks (Mercado Pago, Asaas, PagBank, Woovi, Pagar.me). It is a
 * `Receiver`: every adapter serves it unchanged, and its events go through the same processing (dedupe,
 * payment book, order, journal) as the gateway's, under the same names: one `on('transaction_paid')`
 * serves every PSP. The pipeline: method → the source's authentication (before the body) → bytes (hashed
 * as they arrive where the body is signed) → JSON → the source's reader → the PSP's API where the body is
 * only a hint (bounded; 503 when it cannot answer, nothing claimed) → each event's claim, book step and
 * handlers, in order.
 */
export function createPspReceiver(options: PspReceiverOptions): Receiver {
  const intakeOptions = resolvePspIntake(options);
  const source = (sourceRegistry[options.psp].create as (o: PspSourceOptions) => Source)(options);
  // Nothing ignored in silence: a bound on a fetch this source never makes (PagBank, Woovi, Asaas without `apiKey`).
  if (options.fetchTimeoutMs !== undefined && source.fetch === undefined)
    throw new PixhookConfigError(
      `pixhook: \`fetchTimeoutMs\` does not apply to psp "${options.psp}"${options.psp === 'asaas' ? ' without `apiKey`' : ''}: ` +
        'its webhooks are read from their own body and nothing is fetched from its API, so the bound would be ignored.',
    );
  if (options.processing) refuseIgnoredWithProcessing(options);
  // Its options were checked whole (resolvePspIntake): the processing is built from them without a second check.
  const processing = options.processing ?? buildProcessing(options as ProcessingOptions);
  const log: Logger = guardLogger(options.logger);
  const answers = createAnswerMetrics();
  const invalidHandlers: InvalidHandler[] = options.onInvalid ? [options.onInvalid] : [];
  const quarantine: QuarantineStore | undefined = options.quarantine === false ? undefined : (options.quarantine ?? processing.quarantine);
  const keep = createPspKeeper({ source, log, handlers: invalidHandlers, quarantine, counted: () => answers.invalid() });
  const label = `pixhook: ${source.provider} delivery`;

  function report(result: ReceiveResult, ms: number): void {
    if (log === silentLogger) return;
    logAnswer(log, result, { ...logFields(result, ms), provider: source.provider }, label);
  }

  return receiverOver(source, {
    processing,
    ownsProcessing: !options.processing,
    invalidHandlers,
    answers,
    answer: createAnswers(intakeOptions.retryAfterSeconds),
    keep,
    maxBodyBytes: intakeOptions.maxBodyBytes,
    fetchTimeoutMs: intakeOptions.fetchTimeoutMs,
    report,
  });
}
