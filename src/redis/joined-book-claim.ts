import {
  channelOf,
  defaultPolicy,
  type DuplicateHold,
  type JoinedClaim,
  type JoinedClaimResult,
  policyReasons,
  type RecordContext,
  type RecordResult,
  resourceKey,
  statesPayment,
} from '../book/backend.js';
import type { DedupeStore, PixEvent } from '../index.js';
import { releaseScript } from './dedupe-scripts.js';
import { joinedClaimScript } from './joined-book-script.js';
import { isClusterClient, type RedisClientLike, type RedisScript } from './redis-client.js';
import { dedupeSiteOf } from './redis-dedupe-store.js';
import { replyArray, replyText } from './redis-replies.js';
import { RedisUnavailableError } from './redis-unavailable-error.js';

/** What the book lends its joined claim. */
export interface BookSite {
  client: RedisClientLike;
  prefix: string;
  keys: {
    resource(rk: string): string;
    held: string;
    heldKeys: string;
    open: string;
    disputed: string;
    expecting: string;
  };
  maxTimeline: number;
  retentionMs: number;
  now: () => number;
  newHeldId: () => string;
  run(script: RedisScript, keys: string[], args: (string | number)[], what: string): Promise<unknown>;
}

/**
 * The claim and the book's record in one script, when `store` is a Redis dedupe store on the book's
 * client whose keys share the book's slot (always on one server; on a Cluster, when both prefixes carry
 * the same {hash tag}). Otherwise undefined: the processing claims, then records.
 */
export function joinedClaimFor(store: DedupeStore, book: BookSite): JoinedClaim | undefined {
  const site = dedupeSiteOf(store);
  if (site === undefined || site.client !== book.client) return undefined;
  if (isClusterClient(book.client) && (hashTag(site.prefix) === undefined || hashTag(site.prefix) !== hashTag(book.prefix)))
    return undefined;
  const { keys } = book;
  return async (key, owner, ttlMs, event, context) => {
    const current = event.kind === 'transaction' ? event.transaction : event.transfer;
    const rk = resourceKey(event.kind, current.id);
    const dedupeKey = site.prefix + key;
    let reply: unknown[];
    try {
      reply = replyArray(
        await book.run(
          joinedClaimScript,
          [dedupeKey, keys.resource(rk), keys.held, keys.heldKeys, keys.open, keys.disputed, keys.expecting],
          [owner, Math.max(1, Math.ceil(ttlMs)), JSON.stringify(event), ...factOf(event, context, rk, book)],
          'claim',
        ),
      );
    } catch (error) {
      // The script may still land after a timeout: give the claim back behind it, as the store's own claim does.
      book.run(releaseScript, [dedupeKey], [owner], 'release').catch(() => {});
      throw error;
    }
    return joinedResult(replyText(reply[0]), replyText(reply[1]));
  };
}

function joinedResult(claim: string, result: string): JoinedClaimResult {
  if (claim === 'in_flight') return { claim };
  if (claim === 'done') return result === '' ? { claim } : { claim, retry: parsed(result) as DuplicateHold };
  if (claim === 'claimed') return { claim, recorded: result === 'apply' ? { outcome: 'apply', violations: [] } : parsed(result) };
  throw new RedisUnavailableError(`unexpected answer from the redis claim and book script: ${claim}`);
}

function parsed(text: string): RecordResult {
  const value = JSON.parse(text) as RecordResult;
  // cjson writes an empty list as {}.
  if (!Array.isArray(value.violations)) value.violations = [];
  return value;
}

/** What the script needs of the event and the context, in the order of `factFields`: everything that does not depend on the book, computed here. */
function factOf(event: PixEvent, context: RecordContext, rk: string, book: BookSite): (string | number)[] {
  const current = event.kind === 'transaction' ? event.transaction : event.transfer;
  const at = typeof context.at === 'number' && Number.isFinite(context.at) ? context.at : book.now();
  const stated = event.timestamp === undefined ? Number.NaN : Date.parse(event.timestamp);
  const paidAtMs = Number.isFinite(stated) ? stated : at;
  const policy = context.policy ?? defaultPolicy;
  const transaction = event.kind === 'transaction' ? event.transaction : undefined;
  const deliveryId = context.deliveryId ?? event.deliveryId;
  let infraction = '';
  if (transaction !== undefined && event.name === 'transaction_infraction') {
    const given = transaction.infraction;
    const openedAt = given?.openedAt === undefined ? Number.NaN : Date.parse(given.openedAt);
    infraction = JSON.stringify({
      id: given?.id,
      status: given?.status,
      reason: given?.reason,
      amountInCents: given?.amountInCents,
      openedAt: Number.isFinite(openedAt) ? new Date(openedAt).toISOString() : undefined,
    });
  }
  return [
    rk,
    rk + '\n' + context.dedupeKey,
    current.id,
    event.kind,
    event.name,
    current.status,
    current.amountInCents,
    context.channel ?? channelOf(event),
    optional(deliveryId),
    context.dedupeKey,
    new Date(at).toISOString(),
    paidAtMs,
    new Date(paidAtMs).toISOString(),
    statesPayment(event) ? '1' : '0',
    context.confirmed === undefined ? '' : context.confirmed ? '1' : '0',
    policyReasons.map((reason) => (policy[reason] === 'hold' ? 'h' : 'f')).join(''),
    book.newHeldId(),
    book.maxTimeline,
    book.retentionMs,
    Date.now(),
    optional(transaction?.endToEndId),
    optional(transaction?.payer?.document === undefined ? undefined : writtenDocument(transaction.payer.document)),
    infraction,
  ];
}

function optional(value: string | undefined): string {
  return value === undefined ? '' : '+' + value;
}

/** The payer's document as ASCII of the same length: digits kept, a masked position `*`, anything else `?` (document-digits.ts). */
function writtenDocument(value: string): string {
  return [...value.replace(/[\s.\-/]/g, '')]
    .map((char) => (/^\d$/.test(char) ? char : /^[*xX•#]$/.test(char) ? '*' : '?'.repeat(char.length)))
    .join('');
}

function hashTag(prefix: string): string | undefined {
  const open = prefix.indexOf('{');
  const close = open === -1 ? -1 : prefix.indexOf('}', open + 1);
  return close > open + 1 ? prefix.slice(open + 1, close) : undefined;
}
