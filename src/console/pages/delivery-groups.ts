import type { JournalEntry } from '../../journal/delivery-journal.js';
import type { SandboxDelivery } from '../console-sandbox.js';
import { rowOf } from '../client/row-of.js';

/** One gateway attempt, joined to the journal entry it produced (a fault attempt never reached the receiver). */
interface GatewayAttempt {
  deliveryId: string;
  attempt: number;
  status?: number;
  error?: string;
  fault?: string;
  at?: string;
  durationMs?: number;
  entryId?: string;
}

/** The deliveries of one event (same dedupe key), newest first, with the gateway's attempts when known. */
export interface DeliveryGroup {
  key: string;
  entries: JournalEntry[];
  gateway: GatewayAttempt[];
}

/**
 * Groups the journal's entries (newest first) by dedupe key, one group per event (`rowOf`: an API Pix refund's
 * call is the refund's row); an entry without a key (forged, unreadable) is its own group. Under `pixhook dev` the emulator's deliveries are joined by their
 * exact body: its attempts that reached the receiver pair, in order, with the entries of that body.
 */
export function groupDeliveries(entries: readonly JournalEntry[], gateway: readonly SandboxDelivery[] = []): DeliveryGroup[] {
  const groups = new Map<string, DeliveryGroup>();
  for (const entry of entries) {
    const key = rowOf(entry).key;
    const group = groups.get(key) ?? { key, entries: [], gateway: [] };
    group.entries.push(entry);
    groups.set(key, group);
  }
  const byBody = new Map<string, DeliveryGroup>();
  for (const group of groups.values())
    for (const entry of group.entries) if (entry.body !== undefined && entry.replayOf === undefined) byBody.set(entry.body, group);
  for (const delivery of gateway) {
    const group = delivery.body === undefined ? undefined : byBody.get(delivery.body);
    if (group === undefined) continue;
    // The receiver's entries of this body, oldest first, not yet paired with an earlier gateway delivery.
    const paired = new Set(group.gateway.map((a) => a.entryId));
    const received = group.entries
      .filter((e) => e.body === delivery.body && e.replayOf === undefined && !paired.has(e.id))
      .sort((a, b) => a.at.localeCompare(b.at));
    for (const attempt of [...delivery.attempts].sort((a, b) => a.attempt - b.attempt)) {
      const reached = attempt.fault === undefined && attempt.status !== undefined ? received.shift() : undefined;
      group.gateway.push({ deliveryId: delivery.id, ...attempt, ...(reached !== undefined && { entryId: reached.id }) });
    }
  }
  return [...groups.values()];
}

/** The handler time of one delivery: its runs' durations summed, in ms. */
export function latencyOf(entry: JournalEntry): number | undefined {
  if (entry.attempts.length === 0) return undefined;
  return Math.round(entry.attempts.reduce((sum, a) => sum + a.durationMs, 0) * 1000) / 1000;
}
