import { randomBytes } from 'node:crypto';

/**
 * The key's deduplication id on the queue (BullMQ's `deduplication.id`), and the job id queues made before
 * the add became the claim. BullMQ refuses custom job ids that are integers or contain ':' (dedupe keys are
 * `name:id:status:amount…`), so the key is escaped reversibly behind a `pix.` prefix.
 */
export function jobIdForKey(key: string): string {
  return `pix.${key.replaceAll('%', '%25').replaceAll(':', '%3A')}`;
}

export function keyForJobId(jobId: string): string {
  return jobId.slice('pix.'.length).replaceAll('%3A', ':').replaceAll('%25', '%');
}

// 72 random bits per process (base64url: never ':', never an integer), then a counter: each add's job id is its
// own, so the add can tell a new job (its id comes back) from a duplicate (the id of the job the key's deduplication
// id points at). The job id is short on purpose: BullMQ writes it into the job's hash key, its lock, the wait,
// active and completed sets and every event of the job (about 25 µs of Redis per event with the key in it);
// the event's key is in the job's data and its deduplication id.
const addPrefix = randomBytes(9).toString('base64url');
let addSeq = 0;

/** A fresh job id for one add: `<process>.<n>` (the key's deduplication id says which event it is). */
export function freshJobId(): string {
  return `${addPrefix}.${(++addSeq).toString(36)}`;
}
