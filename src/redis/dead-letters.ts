import type { Job } from 'bullmq';
import type { EventJobQueue } from './durable-queue.js';
import type { QueuedEvent } from '../index.js';
import { dedupeIdForKey, jobIdForKey } from './job-id.js';

/** A durable job that failed its last attempt: nothing is lost, it waits here for a replay. */
export interface DeadLetter {
  key: string;
  name: string;
  receivedAt: string;
  payload: unknown;
  /** The last error's message, as the worker recorded it. */
  failedReason: string;
  attemptsMade: number;
  failedAt?: string;
}

export interface DeadLetterRange {
  /** Default 0. */
  start?: number;
  /** Inclusive. Default 99. */
  end?: number;
}

export async function listDeadLetters(queue: EventJobQueue, range: DeadLetterRange = {}): Promise<DeadLetter[]> {
  const jobs = await queue.getFailed(range.start ?? 0, range.end ?? 99);
  return jobs.filter((job) => job !== undefined && job !== null).map((job) => toDeadLetter(job as Job<QueuedEvent>));
}

export async function replayDeadLetter(queue: EventJobQueue, key: string): Promise<boolean> {
  const job = await failedJobOf(queue, key);
  if (job === undefined) return false;
  await replayJob(job, key);
  return true;
}

/**
 * The dead letter of `key`: the job its deduplication id points at, the job a queue of an earlier version made
 * under the key's own id, or (once the deduplication id has lapsed) the failed job that carries the key.
 */
async function failedJobOf(queue: EventJobQueue, key: string): Promise<Job<QueuedEvent> | undefined> {
  const keyId = jobIdForKey(key);
  const pointed = await queue.getDeduplicationJobId(dedupeIdForKey(key));
  for (const id of pointed ? [pointed, keyId] : [keyId]) {
    const job = await queue.getJob(id);
    if (job && (await job.isFailed())) return job as Job<QueuedEvent>;
  }
  for (let start = 0; ; start += 500) {
    const page = await queue.getFailed(start, start + 499);
    const found = page.find((job) => job && (job as Job<QueuedEvent>).data.key === key);
    if (found) return found as Job<QueuedEvent>;
    if (page.length < 500) return undefined;
  }
}

async function replayJob(job: Job<QueuedEvent>, key: string): Promise<void> {
  // Marked as a replay: a worker with a journal appends its runs to the delivery as replay runs.
  if (job.data.replayOf === undefined) await job.updateData({ ...job.data, replayOf: job.data.journalId ?? key });
  await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
}

/** Each Redis step goes through `bounded`, so a Redis that stops answering rejects the replay instead of hanging it. */
type BoundedCall = <T>(call: () => Promise<T>, what: string) => Promise<T>;

export async function replayDeadLetters(queue: EventJobQueue, bounded: BoundedCall = (call) => call()): Promise<number> {
  // Ids first, then retries: retrying while paging would shift the pages.
  const ids: string[] = [];
  for (let start = 0; ; start += 500) {
    const page = await bounded(() => queue.getFailed(start, start + 499), 'listing dead letters');
    for (const job of page) if (job?.id !== undefined) ids.push(job.id);
    if (page.length < 500) break;
  }
  let replayed = 0;
  for (const id of ids) {
    const done = await bounded(async () => {
      const job = (await queue.getJob(id)) as Job<QueuedEvent> | undefined;
      if (!job || !(await job.isFailed())) return false;
      await replayJob(job, job.data.key);
      return true;
    }, 'replaying a dead letter');
    if (done) replayed++;
  }
  return replayed;
}

function toDeadLetter(job: Job<QueuedEvent>): DeadLetter {
  return {
    key: job.data.key,
    name: job.data.name,
    receivedAt: job.data.receivedAt,
    payload: readBody(job.data.body),
    failedReason: job.failedReason,
    attemptsMade: job.attemptsMade,
    ...(job.finishedOn !== undefined && { failedAt: new Date(job.finishedOn).toISOString() }),
  };
}

/** The verified body as JSON (as text if it is not); nothing for a job without one. */
function readBody(body: unknown): unknown {
  if (typeof body !== 'string') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
