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

// One random prefix per process, then a counter: each add's job id is its own, so the add can tell a new
// job (its id comes back) from a duplicate (the id of the job the key's deduplication id points at).
const addPrefix = Math.random().toString(36).slice(2, 10);
let addSeq = 0;

/** A fresh job id for one add of the key whose `jobIdForKey` is `keyId`: `<keyId>.<process>-<n>`. */
export function freshJobId(keyId: string): string {
  return `${keyId}.${addPrefix}-${++addSeq}`;
}
