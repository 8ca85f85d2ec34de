import { isApiPixEventName } from '../events/event-names.js';
import type { JsonObject, PixEvent } from '../events/event-types.js';
import { isJsonObject, normalizeEvent } from '../events/normalize-event.js';
import { readApiPixEnvelope } from '../events/read-api-pix.js';
import { describeError } from '../shared/describe-error.js';
import { PixhookError } from '../shared/pixhook-error.js';
import type { RunScope } from './claimed-run.js';
import { timedAttempt } from './journal-hook.js';
import type { QueuedEvent } from './processing-options.js';
import type { QueuedRun } from './processing.js';
import { runAttempt } from './run-attempt.js';

/**
 * Runs one durably queued job's handlers (the durable worker's side of durable mode). Rejects when they
 * fail, so the queue retries; the final failure is dead-lettered and told to `onError`.
 */
export async function runQueued(scope: RunScope, job: QueuedEvent, run: QueuedRun): Promise<void> {
  const { handlers, config, metrics, log, writer } = scope;
  const event = readQueued(job);
  const running = () =>
    runAttempt({
      handlers,
      event,
      attempt: run.attempt,
      mode: 'durable',
      source: event.source ?? job.source ?? 'webhook',
      limitMs: config.queuedHandlerTimeoutMs,
      key: job.key,
      telemetry: config.telemetry,
      link: job.trace,
    });
  const id = writer && job.journalId;
  const runJob = () =>
    id === undefined ? running() : timedAttempt(writer!, id, run.attempt, running, job.replayOf === undefined ? undefined : 'replay');
  // In its resource's order, one run at a time (throws `resource_busy` while it is not its turn).
  const outcome = await scope.order.runInTurn(event, job.key, run, runJob);
  if (outcome.ok) {
    if (outcome.duplicate) metrics.duplicate();
    else metrics.handled();
    return;
  }
  metrics.failed(outcome);
  if (run.final) {
    metrics.deadLettered();
    log.error({ key: job.key, event: job.name, attempt: run.attempt, error: describeError(outcome.error) }, 'pixhook: dead-lettered');
    await handlers.reportError({ error: outcome.error, event, key: job.key, attempt: run.attempt, mode: 'durable' });
  }
  throw outcome.error instanceof Error ? outcome.error : new PixhookError('handler_failed', describeError(outcome.error));
}

/** A queued job's event, read again from the verified bytes it carries. */
function readQueued(job: QueuedEvent): PixEvent {
  if (typeof job.body !== 'string') throw new PixhookError('payload_invalid', `queued job ${job.key} carries no verified body`);
  let value: unknown;
  try {
    value = JSON.parse(job.body);
  } catch {
    throw new PixhookError('payload_invalid', `queued job ${job.key} does not hold JSON`);
  }
  // The standard API Pix's events queue their own one-event envelope (`{ event, pix }`…), never a gateway body.
  const name = isJsonObject(value) ? value['event'] : undefined;
  if (typeof name === 'string' && isApiPixEventName(name)) {
    const read = readApiPixEnvelope(name, value as JsonObject, job.source ?? 'webhook');
    if (!read.ok) throw new PixhookError('payload_invalid', `queued job ${job.key} no longer reads`);
    return read.event;
  }
  const normalized = normalizeEvent(value, { source: job.source ?? 'webhook' });
  if (!normalized.ok || normalized.event.kind === 'unknown') {
    throw new PixhookError('payload_invalid', `queued job ${job.key} no longer normalizes`);
  }
  return normalized.event;
}
