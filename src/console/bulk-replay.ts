import { PixhookConfigError, PixhookError } from '../shared/pixhook-error.js';
import type { Processing } from '../index.js';
import type { DeliveryJournal, JournalEntry } from '../journal/delivery-journal.js';
import { deliveryState, type DeliveryState } from './client/delivery-state.js';
import { replayBody } from './replay-body.js';

/** Which journaled deliveries a bulk replay takes (every filter optional; all given must match). */
interface ReplayFilter {
  /** ISO 8601: deliveries that arrived at or after this. */
  since?: string;
  /** ISO 8601: deliveries that arrived before this. */
  until?: string;
  event?: string;
  /** The answer's HTTP status. */
  answer?: number;
  reason?: string;
  resource?: string;
}

export interface BulkReplayResult {
  dryRun: boolean;
  /** Deliveries that match the filters and can be replayed (verified, with their body, not themselves replays). */
  matched: number;
  /** Deliveries that match but cannot be replayed (unverified, no body kept, or a replay already). */
  skipped: number;
  /** On a dry run: deliveries that match but whose events the journal shows handled since; a replay would answer `duplicate`. */
  duplicates: number;
  /** What the runs came to, by state (empty on a dry run). */
  outcomes: Partial<Record<DeliveryState, number>>;
  /** Runs that did not end 2xx. */
  failed: number;
  /** Each matched delivery, oldest first, with its replay's journal id and state once run. */
  deliveries: { id: string; event?: string; resourceId?: string; replayId?: string; state?: DeliveryState }[];
}

/** At most this many deliveries in one bulk replay: a larger window is split by time. */
const maxBulkReplay = 1000;
const pageSize = 500;

/**
 * Replays the journaled deliveries matching `filter`, oldest first (a charge's `created` before its
 * `paid`), each through the processing's dedupe like any replay: a handled event comes back
 * `duplicate`. `dryRun` only counts. Unverified deliveries are never replayed (no body is kept).
 */
export async function bulkReplay(input: {
  journal: DeliveryJournal;
  processing: Processing | undefined;
  filter: ReplayFilter;
  dryRun: boolean;
}): Promise<BulkReplayResult> {
  const { journal, processing, filter, dryRun } = input;
  const since = filter.since === undefined ? -Infinity : Date.parse(filter.since);
  const until = filter.until === undefined ? Infinity : Date.parse(filter.until);
  if (Number.isNaN(since) || Number.isNaN(until))
    throw new PixhookError('request_invalid', 'since and until must be ISO 8601 times', { status: 400 });
  const picked: JournalEntry[] = [];
  let skipped = 0;
  let before: string | undefined;
  outer: for (;;) {
    const page = await journal.list({
      limit: pageSize,
      ...(before !== undefined && { before }),
      ...(filter.event !== undefined && { event: filter.event }),
      ...(filter.answer !== undefined && { status: filter.answer }),
      ...(filter.reason !== undefined && { reason: filter.reason }),
      ...(filter.resource !== undefined && { resource: filter.resource }),
    });
    for (const entry of page) {
      const at = Date.parse(entry.at);
      if (at < since) break outer;
      if (at >= until) continue;
      if (!entry.verified || entry.body === undefined || entry.replayOf !== undefined) skipped++;
      else picked.push(entry);
      if (picked.length > maxBulkReplay)
        throw new PixhookError(
          'request_invalid',
          `more than ${maxBulkReplay} deliveries match: narrow the window (since, until) or the filters`,
          { status: 400 },
        );
    }
    if (page.length < pageSize) break;
    before = page.at(-1)!.id;
  }
  picked.reverse();
  let duplicates = 0;
  if (dryRun) {
    const before = picked.length;
    const handled = await handledSince(journal, picked);
    picked.splice(0, picked.length, ...picked.filter((entry) => !handled(entry)));
    duplicates = before - picked.length;
  }
  const result: BulkReplayResult = {
    dryRun,
    matched: picked.length,
    skipped,
    duplicates,
    outcomes: {},
    failed: 0,
    deliveries: picked.map((e) => ({
      id: e.id,
      ...(e.event !== undefined && { event: e.event }),
      ...(e.resourceId !== undefined && { resourceId: e.resourceId }),
    })),
  };
  if (dryRun) return result;
  if (processing === undefined)
    throw new PixhookConfigError('pixhook: `processing`: a replay needs the receiver (its handlers and dedupe store).');
  for (const [i, entry] of picked.entries()) {
    const replay = await replayBody({ bytes: new TextEncoder().encode(entry.body), processing, journal, replayOf: entry.id, entry });
    const state = deliveryState(replay);
    result.outcomes[state] = (result.outcomes[state] ?? 0) + 1;
    if (replay.status >= 300) result.failed++;
    result.deliveries[i] = { ...result.deliveries[i]!, replayId: replay.id, state };
  }
  return result;
}

/**
 * Whether the journal shows every event of an entry handled (by it, a retry, another delivery or a replay of its
 * resource: answered 2xx, handled or `duplicate`): replayed, it would come back `duplicate`.
 */
async function handledSince(journal: DeliveryJournal, entries: readonly JournalEntry[]): Promise<(entry: JournalEntry) => boolean> {
  const done = new Set<string>();
  const read = new Set<string>();
  for (const entry of entries) {
    if (entry.resourceId === undefined || read.has(entry.resourceId)) continue;
    read.add(entry.resourceId);
    for (const other of await journal.list({ resource: entry.resourceId, limit: pageSize })) {
      if (other.status >= 300) continue;
      for (const item of other.items ?? [other]) if (item.key !== undefined && ranToTheEnd(item.reason)) done.add(item.key);
    }
  }
  return (entry) => {
    const keys = (entry.items ?? [entry]).map((item) => item.key);
    return keys.length > 0 && keys.every((key) => key !== undefined && done.has(key));
  };
}

const ranToTheEnd = (reason: string | undefined): boolean => reason === undefined || reason === 'duplicate';

/** The filters from a form or a query string (`since`, `until`, `event`, `answer`, `reason`, `resource`); bad values are refused. */
export function replayFilterFrom(params: URLSearchParams): ReplayFilter {
  const filter: ReplayFilter = {};
  for (const name of ['since', 'until'] as const) {
    const value = params.get(name)?.trim();
    if (value === undefined || value === '') continue;
    if (Number.isNaN(Date.parse(value)))
      throw new PixhookError('request_invalid', `${name} must be an ISO 8601 time (2026-11-27T10:00:00Z)`, { status: 400 });
    filter[name] = new Date(Date.parse(value)).toISOString();
  }
  for (const name of ['event', 'reason', 'resource'] as const) {
    const value = params.get(name)?.trim();
    if (value !== undefined && value !== '') filter[name] = value.slice(0, 200);
  }
  const answer = params.get('answer')?.trim();
  if (answer !== undefined && answer !== '') {
    if (!/^\d{3}$/.test(answer)) throw new PixhookError('request_invalid', 'answer must be an HTTP status (e.g. 500)', { status: 400 });
    filter.answer = Number(answer);
  }
  return filter;
}
