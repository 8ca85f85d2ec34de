import type { JournalEntry, JournalItem } from '../../journal/delivery-journal.js';
import { isoTime } from '../../journal/iso-time.js';
import type { ReceiveResult } from '../../intake/receive-answer.js';
import type { Call, ItemOutcome } from './api-pix-call.js';

/** The call's one journal entry: the body only once authenticated, never the query (it may hold the secret). */
export function callEntry(call: Call, result: ReceiveResult): JournalEntry {
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
  if (call.verified && call.body !== undefined) entry.body = call.body;
  return entry;
}

function journalItem({ event, accepted }: ItemOutcome): JournalItem {
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
