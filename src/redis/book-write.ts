import { createHash } from 'node:crypto';
import type { ResourceState, StoredHeld } from '../book/backend.js';
import { commitScript, type BookKeys } from './book-scripts.js';
import type { RedisScript } from './redis-client.js';

/** One compare-and-set write of the payment book (src/redis/commands/commit-book.lua): a resource, a held event, or both. */
export interface Write {
  rk: string;
  /** The resource as read ('' absent), and its next state; no `next`: not written. */
  read?: string;
  next?: ResourceState;
  heldId?: string;
  heldRead?: string;
  held?: StoredHeld;
  op?: 'open' | 'close' | 'keep';
  score?: number;
  expecting?: boolean;
}

/** What the book lends its writes. */
interface WriteSite {
  keys: BookKeys;
  retentionMs: number;
  maxClosed: number;
  run(script: RedisScript, keys: string[], args: (string | number)[], what: string): Promise<unknown>;
}

/** True when the write landed; false when something changed since it was read (read again and retry). */
export async function writeBook(site: WriteSite, write: Write): Promise<boolean> {
  const { keys } = site;
  const next = write.next;
  const disputes = next === undefined ? '0' : next.disputes.some((d) => d.open) ? '2' : next.disputes.length > 0 ? '1' : '0';
  const held = write.held?.held;
  const args = [
    next === undefined ? '*' : sha(write.read ?? ''),
    next === undefined ? '' : JSON.stringify(next),
    site.retentionMs,
    disputes,
    write.rk,
    write.heldId ?? '',
    sha(write.heldRead ?? ''),
    write.held === undefined ? '' : JSON.stringify(write.held),
    write.op ?? 'keep',
    Math.round(write.score ?? 0),
    held === undefined ? '' : write.rk + '\n' + held.dedupeKey,
    site.maxClosed,
    write.expecting === true ? '1' : '0',
  ];
  const done = await site.run(
    commitScript,
    [keys.resource(write.rk), keys.held, keys.heldKeys, keys.open, keys.closed, keys.disputed, keys.expecting],
    args,
    'write',
  );
  return Number(done) === 1;
}

/** The SHA1 a compare-and-set compares ('' for an absent value, as the scripts read it). */
export function sha(text: string): string {
  return text === '' ? '' : createHash('sha1').update(text, 'utf8').digest('hex');
}
