/**
 * BullMQ refuses custom job ids that are integers or contain ':' (dedupe keys are
 * `name:id:status:amount…`), so the key is escaped reversibly behind a `pix.` prefix.
 */
export function jobIdForKey(key: string): string {
  return `pix.${key.replaceAll('%', '%25').replaceAll(':', '%3A')}`;
}

export function keyForJobId(jobId: string): string {
  return jobId.slice('pix.'.length).replaceAll('%3A', ':').replaceAll('%25', '%');
}
