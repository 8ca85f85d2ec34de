// Every journal entry and attempt is built here, after the answer, from what the pipeline kept of a
// delivery: the receiver's deliveries, replays handed to `accept`, and handler runs.
import { channelOf } from '../events/book-channel.js';
import type { ApiPixEvent, PixEvent, Provider, PspTransactionEvent, UnknownEvent } from '../events/event-types.js';
import { describeError } from '../shared/describe-error.js';
import { redactSecrets } from '../shared/redact-secrets.js';
import { readHeader, type HeaderSource } from '../shared/read-header.js';
import { reasonStatus, type ReasonCode } from '../shared/reasons.js';
import type { JournalAttempt, JournalConfirmed, JournalEntry, JournalItem } from './delivery-journal.js';
import { isoTime } from '../shared/iso-time.js';

/** What the receiver kept of a delivery (its request, bytes, event), by the time it answered. */
export interface JournaledDelivery {
  readonly request: { readonly headers: HeaderSource; readonly remoteAddress?: string | undefined; readonly replayOf?: string | undefined };
  readonly journal: { readonly id: string } | undefined;
  /** Date.now() when it arrived. */
  readonly arrivedAt: number;
  readonly bytes: Uint8Array;
  readonly verified: boolean;
  readonly event: PixEvent | UnknownEvent | undefined;
  /** The verified body as text, once it was read as JSON. */
  readonly text: string | undefined;
}

/** The answer, as far as the journal keeps it. */
interface JournaledAnswer {
  readonly status: number;
  readonly reason?: ReasonCode | undefined;
  readonly key?: string | undefined;
}

const decoder = new TextDecoder();

/** The entry of an answered delivery. An unverified body is never kept: only its size and the reason. */
export function deliveryEntry(delivery: JournaledDelivery, result: JournaledAnswer, signatureHeader: string): JournalEntry {
  const { request, event } = delivery;
  const entry: JournalEntry = {
    id: delivery.journal!.id,
    at: isoTime(delivery.arrivedAt),
    verified: delivery.verified,
    status: result.status,
    bodyBytes: delivery.bytes.byteLength,
    attempts: [],
  };
  if (typeof request.remoteAddress === 'string' && request.remoteAddress !== '') entry.remoteAddress = request.remoteAddress;
  if (result.reason !== undefined) entry.reason = result.reason;
  if (event !== undefined) {
    entry.event = event.name;
    eventFields(event, entry);
  }
  if (result.key !== undefined) entry.key = result.key;
  if (request.replayOf !== undefined) {
    entry.replayOf = request.replayOf;
    entry.channel = 'replay';
  }
  if (delivery.verified) entry.body = delivery.text ?? decoder.decode(delivery.bytes);
  const signature = maskSignature(readHeader(request.headers, signatureHeader));
  if (signature !== undefined) entry.signature = signature;
  return entry;
}

/** The entry of a replay handed to `accept` (`{ replayOf }`) rather than through a receiver, with the answer a receiver would have given. */
export function replayEntry(
  id: string,
  arrivedAt: number,
  event: PixEvent | UnknownEvent,
  replay: { readonly body: string | undefined; readonly replayOf: string | undefined },
  result: { readonly reason?: ReasonCode | undefined; readonly key?: string | undefined },
): JournalEntry {
  const body = replay.body ?? JSON.stringify(event.payload);
  const entry: JournalEntry = {
    id,
    at: isoTime(arrivedAt),
    verified: true,
    status: result.reason === undefined ? 200 : reasonStatus[result.reason],
    event: event.name,
    bodyBytes: new TextEncoder().encode(body).byteLength,
    body,
    attempts: [],
    ...eventFields(event),
  };
  entry.channel = 'replay';
  if (result.reason !== undefined) entry.reason = result.reason;
  if (result.key !== undefined) entry.key = result.key;
  if (replay.replayOf !== undefined) entry.replayOf = replay.replayOf;
  return entry;
}

/** How one handler run ended, as an attempt: it started at `at` (ms since the epoch) and took `durationMs`. */
export function attemptEntry(
  outcome: { ok: true } | { ok: false; error: unknown; timedOut?: true; claimLost?: true },
  attempt: number,
  at: number,
  durationMs: number,
  run?: JournalAttempt['run'],
): JournalAttempt {
  const recorded: JournalAttempt = {
    attempt,
    at: isoTime(at),
    durationMs: Math.round(durationMs * 1000) / 1000,
    outcome: outcome.ok ? 'ok' : outcome.timedOut ? 'timed_out' : outcome.claimLost ? 'claim_lost' : 'failed',
  };
  // Redacted before the journal: the console, its API and its live stream show this text.
  if (!outcome.ok) recorded.error = redactSecrets(describeError(outcome.error));
  if (run !== undefined) recorded.run = run;
  return recorded;
}

/** The entry fields an event gives: channel, resource id, amount, the gateway's delivery id, warnings. */
function eventFields(event: PixEvent | UnknownEvent, fields: Partial<JournalEntry> = {}): Partial<JournalEntry> {
  if (event.deliveryId !== undefined) fields.deliveryId = event.deliveryId;
  if (event.kind === 'unknown') return fields;
  fields.channel = channelOf(event);
  const resource = event.kind === 'transaction' ? event.transaction : event.transfer;
  fields.resourceId = resource.id;
  fields.amountInCents = resource.amountInCents;
  if (event.warnings.length > 0) fields.warnings = event.warnings.map((w) => `${w.path}: ${w.message ?? `found ${w.found}`}`);
  return fields;
}

/**
 * The signature header with its secret-derived part cut to 4 characters: `sha256=3f2a…`,
 * `t=1700000000,v1=3f2a…`. Enough to tell two apart, never enough to replay one.
 */
function maskSignature(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const cut = value.lastIndexOf('=') + 1;
  const prefix = value.slice(0, Math.min(cut, 40));
  return `${prefix}${value.slice(cut, cut + 4)}…`;
}

/** What the API Pix receiver kept of one call (several Pix in one body): its items, each with its answer. */
interface JournaledCall {
  readonly journal: { readonly id: string } | undefined;
  readonly arrivedAt: number;
  readonly verified: boolean;
  readonly bytes: Uint8Array;
  /** The authenticated body as text. */
  readonly text: string | undefined;
  readonly request: { readonly peer?: { readonly address?: string | undefined } | undefined; readonly remoteAddress?: string | undefined };
  readonly outcomes: readonly {
    readonly event: ApiPixEvent | PspTransactionEvent;
    readonly accepted: { readonly key?: string | undefined; readonly reason?: ReasonCode | undefined };
  }[];
  /** The records a source fetched for the body's hints (its confirmed state). */
  readonly confirmed?: readonly JournalConfirmed[] | undefined;
}

/**
 * The call's one journal entry: the body only once authenticated, never the query (it may hold the secret).
 * `profile` is the source that read it (its provider): a replay reads the body again with that source's reader.
 */
export function callEntry(call: JournaledCall, result: JournaledAnswer, profile: Provider): JournalEntry {
  const entry: JournalEntry = {
    id: call.journal!.id,
    at: isoTime(call.arrivedAt),
    verified: call.verified,
    status: result.status,
    bodyBytes: call.bytes.byteLength,
    attempts: [],
  };
  const address = call.request.peer?.address ?? call.request.remoteAddress;
  if (typeof address === 'string' && address !== '') entry.remoteAddress = address;
  if (result.reason !== undefined) entry.reason = result.reason;
  const first = call.outcomes[0]?.event;
  if (first !== undefined) {
    entry.event = first.name;
    entry.resourceId = first.transaction.id;
    entry.amountInCents = first.transaction.amountInCents;
    if (call.outcomes[0]!.accepted.key !== undefined) entry.key = call.outcomes[0]!.accepted.key;
  }
  if (call.outcomes.length > 0) entry.items = call.outcomes.map(journalItem);
  // Which reader a replay needs: an API Pix call's body is `{ "pix": [...] }`, a PSP's its own, never a gateway event.
  entry.profile = profile;
  if (call.verified && call.text !== undefined) {
    entry.body = call.text;
    if (call.confirmed !== undefined) entry.confirmed = [...call.confirmed];
  }
  return entry;
}

/** One event of a call as the journal keeps it (a replay of the call builds its items the same way). */
export function journalItem({ event, accepted }: JournaledCall['outcomes'][number]): JournalItem {
  const item: JournalItem = { event: event.name };
  if (accepted.key !== undefined) item.key = accepted.key;
  if (accepted.reason !== undefined) item.reason = accepted.reason;
  if (event.name === 'pix_received' || event.name === 'pix_refund_updated') {
    item.endToEndId = event.pix.endToEndId;
    if (event.pix.key !== undefined) item.pixKey = event.pix.key;
    if (event.pix.txid !== undefined) item.txid = event.pix.txid;
    item.amountInCents = event.name === 'pix_received' ? event.pix.amountInCents : event.refund.amountInCents;
  } else if (event.name === 'recurring_charge_updated') item.txid = event.recurringCharge.txid;
  return item;
}
