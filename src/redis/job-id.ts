import * as crypto from 'node:crypto';

// node:crypto's one-shot `hash` (Node 20.12+), about half the cost of createHash().update().digest() on a
// short key; the same digest either way, so a queue keeps refusing the keys of jobs added before.
const sha256Base64url: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'base64url')
    : (text) => crypto.createHash('sha256').update(text).digest('base64url');

/**
 * The key's deduplication id on the queue (BullMQ's `deduplication.id`): `pix.` and 132 bits of the key's SHA-256
 * (base64url), whatever the key's length. BullMQ writes it into the job's options, its hash and the deduplication
 * key, and sends it back with every fetch of the job: the key itself (about 100 characters escaped) cost about
 * 400 bytes per event on the wire. The event's key is in the job's data.
 */
export function dedupeIdForKey(key: string): string {
  return `pix.${sha256Base64url(key).slice(0, 22)}`;
}

/**
 * The job id queues made before the add became the claim (a dead letter of theirs is still found by it). BullMQ
 * refuses custom job ids that are integers or contain ':' (dedupe keys are `name:id:status:amount…`), so the key is
 * escaped reversibly behind a `pix.` prefix.
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
const addPrefix = crypto.randomBytes(9).toString('base64url');
let addSeq = 0;

/** A fresh job id for one add: `<process>.<n>` (the job's data and its deduplication id say which event it is). */
export function freshJobId(): string {
  return `${addPrefix}.${(++addSeq).toString(36)}`;
}
