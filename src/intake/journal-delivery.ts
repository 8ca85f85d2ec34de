// The receiver's side of the delivery journal: one entry per answered delivery, built after
// the answer from what the pipeline kept. Nothing here runs without a `journal` option.
import type { PixEvent, UnknownEvent } from '../events/event-types.js';
import type { JournalEntry } from '../journal/delivery-journal.js';
import { eventFields } from '../journal/event-fields.js';
import { isoTime } from '../journal/iso-time.js';
import { readHeader } from '../shared/read-header.js';
import type { ReceiveRequest } from './create-receiver.js';
import type { ReceiveResult } from './receive-answer.js';

/** What the pipeline kept of a delivery. */
export interface JournaledDelivery {
  readonly request: Pick<ReceiveRequest, 'headers' | 'remoteAddress' | 'replayOf'>;
  readonly journal: { readonly id: string } | undefined;
  /** Date.now() when it arrived. */
  readonly arrivedAt: number;
  bytes: Uint8Array;
  verified: boolean;
  event: PixEvent | UnknownEvent | undefined;
  /** The verified body as text, once it was read as JSON. */
  body: string | undefined;
}

const decoder = new TextDecoder();

/** The entry of an answered delivery. An unverified body is never kept: only its size and the reason. */
export function deliveryEntry(delivery: JournaledDelivery, result: ReceiveResult, signatureHeader: string): JournalEntry {
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
  if (delivery.verified) entry.body = delivery.body ?? decoder.decode(delivery.bytes);
  const signature = maskSignature(readHeader(request.headers, signatureHeader));
  if (signature !== undefined) entry.signature = signature;
  return entry;
}

/**
 * The signature header with its secret-derived part cut to 4 characters: `sha256=3f2a…`,
 * `t=1700000000,v1=3f2a…`. Enough to tell two apart, never enough to replay one.
 */
export function maskSignature(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const cut = value.lastIndexOf('=') + 1;
  const prefix = value.slice(0, Math.min(cut, 40));
  return `${prefix}${value.slice(cut, cut + 4)}…`;
}
