import type { DeliveryJournal, JournalEntry, Logger } from '../index.js';
import { entryFromText, entryText, listLimit, matchesQuery, SharedJournalFeed } from '../journal/backend.js';
import { describeError } from '../shared/describe-error.js';
import { guardLogger } from '../shared/logger.js';
import { checkInteger, checkObject, checkTimeoutMs, mustBe } from '../shared/option-checks.js';
import { journalAddScript, journalAttemptScript, journalChangesScript, journalGetScript, journalPageScript } from './journal-scripts.js';
import { checkClusterPrefix, scriptRunner, type RedisClientLike } from './redis-client.js';
import { replyArray, replyText } from './redis-replies.js';
import { RedisUnavailableError } from './redis-unavailable-error.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

export interface RedisJournalOptions {
  /** An ioredis `Redis`/`Cluster` or a node-redis client, already configured; pixhook never closes it. */
  client: RedisClientLike;
  /** Verified deliveries kept; the oldest go first. Default 10 000. */
  max?: number;
  /**
   * Unverified deliveries (a bad or missing signature) are kept apart: the newest `maxUnverified`, so a
   * flood of forged requests never pushes out a genuine entry. Default a tenth of `max` (at least 1).
   */
  maxUnverified?: number;
  /**
   * Prepended to the journal's six keys. Default `pixhook:{journal}:`: one script touches several, so
   * the `{hash tag}` keeps them in one Cluster slot; on a Cluster a prefix without one is refused.
   */
  prefix?: string;
  /** How often `subscribe` asks Redis for other instances' writes while someone listens. Default 500 ms. */
  pollMs?: number;
  /** Hears a failed poll or a subscriber that threw (writes reject instead). Default: logged to `logger`. */
  onError?: (error: unknown) => void;
  logger?: Logger;
}

const pageSize = 200;

/**
 * A delivery journal several instances share through Redis (or a Redis Cluster: every key carries one
 * hash tag). Entries are kept by id in a lexically sorted set (ids sort by time), so `list` pages newest
 * first with `before`; filters are applied as it pages. `subscribe` polls a change log, so a separate
 * process hears every instance's writes.
 */
export function redisJournal(options: RedisJournalOptions): DeliveryJournal {
  refuseUnknownOptions(options, redisJournalOptionNames, 'redisJournal');
  checkObject('options', options, 'an object ({ client, max?, prefix? })');
  const max = checkInteger('max', options.max, 1, 10_000_000, 10_000);
  const maxUnverified = checkInteger('maxUnverified', options.maxUnverified, 1, 10_000_000, Math.max(1, Math.floor(max / 10)));
  const pollMs = checkTimeoutMs('pollMs', options.pollMs, 500);
  const prefix = options.prefix ?? 'pixhook:{journal}:';
  if (typeof prefix !== 'string' || prefix === '') throw mustBe('prefix', 'a non-empty string', prefix);
  if (options.onError !== undefined && typeof options.onError !== 'function') throw mustBe('onError', 'a function', options.onError);
  const redis = scriptRunner(options.client);
  checkClusterPrefix(options.client, prefix, 'journal', 'shop:{journal}:');
  const keys = ['index', 'entries', 'attempts', 'updates', 'seq', 'unverified'].map((name) => `${prefix}${name}`);
  const log = guardLogger(options.logger);
  const onError =
    options.onError ?? ((error: unknown) => log.error({ error: describeError(error) }, 'pixhook: the redis journal feed failed'));

  function connected(): void {
    if (!redis.ready()) throw new RedisUnavailableError('redis is not connected');
  }

  async function page(before: string, count: number): Promise<JournalEntry[]> {
    const rows = replyArray(await redis.run(journalPageScript, keys, [before, String(count)]));
    const entries: JournalEntry[] = [];
    for (let i = 0; i + 2 < rows.length; i += 3) {
      const entry = entryFromText(replyText(rows[i + 1]), replyText(rows[i + 2]));
      // An id without fields was dropped between the two reads: still a page position.
      entries.push(entry ?? ({ id: replyText(rows[i]), dropped: true } as unknown as JournalEntry));
    }
    return entries;
  }

  const feed = new SharedJournalFeed(
    async (cursor) => {
      const rows = replyArray(await redis.run(journalChangesScript, keys, [cursor ?? '', String(pageSize)]));
      const entries: JournalEntry[] = [];
      let next = replyText(rows[0]);
      for (let i = 1; i + 3 < rows.length; i += 4) {
        next = replyText(rows[i]);
        const entry = entryFromText(replyText(rows[i + 2]), replyText(rows[i + 3]));
        if (entry !== undefined) entries.push(entry);
      }
      return { cursor: next, entries };
    },
    pollMs,
    (error) => {
      try {
        onError(error);
      } catch {
        // onError is the last place to report to.
      }
    },
  );

  return {
    async add(entry) {
      connected();
      const { fields, attempts } = entryText(entry);
      await redis.run(journalAddScript, keys, [entry.id, fields, attempts, String(max), String(maxUnverified), entry.verified ? '1' : '0']);
    },
    async addAttempt(id, attempt) {
      connected();
      await redis.run(journalAttemptScript, keys, [id, JSON.stringify(attempt)]);
    },
    async get(id) {
      connected();
      const row = replyArray(await redis.run(journalGetScript, keys, [id]));
      return row.length === 0 ? undefined : entryFromText(replyText(row[0]), replyText(row[1]));
    },
    async list(query) {
      connected();
      const limit = listLimit(query);
      const found: JournalEntry[] = [];
      let before = query?.before ?? '';
      // Pages newest first until `limit` match; at most the journal's `max` entries are read.
      for (;;) {
        const entries = await page(before, pageSize);
        for (const entry of entries) {
          if ((entry as { dropped?: true }).dropped !== true && matchesQuery(entry, query)) found.push(entry);
          if (found.length >= limit) return found;
        }
        if (entries.length < pageSize) return found;
        before = entries.at(-1)!.id;
      }
    },
    subscribe: (listener) => feed.subscribe(listener),
  };
}

/** Every option redisJournal takes. */
const redisJournalOptionNames = optionNames<RedisJournalOptions>()([
  'client',
  'max',
  'maxUnverified',
  'prefix',
  'pollMs',
  'onError',
  'logger',
]);
