import { isApiPixEventName } from '../events/event-names.js';
import type { JsonObject, PixEvent } from '../events/event-types.js';
import { isJsonObject, normalizeEvent } from '../events/normalize-event.js';
import { readApiPixEnvelope } from '../events/read-api-pix.js';
import { describeError } from '../shared/describe-error.js';
import { PixhookError } from '../shared/pixhook-error.js';
import type { RunScope } from './claimed-run.js';
import type { QueuedEvent } from './processing-options.js';
import type { AcceptResult, QueuedRun } from './processing.js';
import { QueuedJob } from './queued-job.js';
import { readQueuedPsp } from './queued-psp-event.js';
import type { AttemptOutcome } from './run-attempt.js';

/** The book's judgement of a job, then its dispatch (the book stage's `recordInBook`, given when the processing has a book). */
type JudgeJob = (job: QueuedJob) => Promise<AcceptResult>;

/**
 * Runs one durably queued job (the durable worker's side of durable mode) through the stages of an inline
 * delivery: in its resource's order, judged by the book (`judge`, with a book), its handlers, then its commit.
 * Rejects when they fail, so the queue retries; the final failure is dead-lettered and told to `onError`.
 */
export async function runQueued(scope: RunScope, job: QueuedEvent, run: QueuedRun, owner: string, judge?: JudgeJob): Promise<void> {
  const { handlers, metrics, log } = scope;
  const event = readQueued(job);
  const queued = new QueuedJob(scope, event, owner, job, run);
  const runJob = judge === undefined ? () => queued.attempt() : () => judged(judge, queued);
  // One run of its resource at a time (throws `resource_busy` while another job of it runs).
  const outcome = await scope.order.runInTurn(queued, runJob);
  if (outcome.ok) {
    // A judged run was counted by its commit (`succeed`); a held or applied-before one ran nothing.
    if (judge !== undefined) return;
    if (outcome.duplicate) metrics.duplicate();
    else metrics.handled();
    return;
  }
  metrics.failed(outcome);
  if (run.final) {
    metrics.deadLettered();
    log.error({ key: job.key, event: job.name, attempt: run.attempt, error: describeError(outcome.error) }, 'pixhook: dead-lettered');
    await handlers.reportError({ error: outcome.error, event: queued.event, key: job.key, attempt: run.attempt, mode: 'durable' });
  }
  throw outcome.error instanceof Error ? outcome.error : new PixhookError('handler_failed', describeError(outcome.error));
}

/** The book's answer as the run's outcome: applied and run, held or applied before (nothing runs), or failed. */
async function judged(judge: JudgeJob, job: QueuedJob): Promise<AttemptOutcome> {
  const answer = await judge(job);
  if (answer.reason === undefined) return job.outcome ?? { ok: true };
  if (answer.reason === 'duplicate' || answer.reason === 'held') return { ok: true, duplicate: true };
  if (answer.reason === 'handler_failed' && job.outcome !== undefined) return job.outcome;
  // The book or the gateway (`confirm`) could not judge it now: the queue runs it again.
  return {
    ok: false,
    error: new PixhookError(
      'store_unavailable',
      `queued job ${job.key}: ${answer.reason}${answer.hint === undefined ? '' : ': ' + answer.hint}`,
    ),
  };
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
  // A PSP's event, as intake read and confirmed it.
  if (job.provider !== undefined) return readQueuedPsp(job, value);
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
