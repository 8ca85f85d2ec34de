import type { PixEvent } from '../events/event-types.js';
import { applyInfraction } from './dispute-update.js';
import { evaluatePolicy, movesForward, paymentOf, samePayment, statesPayment, type PaymentFact } from './evaluate-policy.js';
import type { BookChannel } from '../events/book-channel.js';
import type { BookResource, Dispute, Expectation, HeldEvent, RecordResult, TimelineEntry, TimelineOutcome } from './payment-book.js';
import type { ResolvedPolicy } from './payment-policy.js';

// One resource as every backend stores it (plain JSON), and the pure steps that change it. A backend
// reads the state, runs a step, and writes the result back atomically for that resource.

const maxPayments = 20;

export interface ResourceState {
  id: string;
  kind: 'transaction' | 'transfer';
  /** The latest applied status: undefined until an event is applied. */
  status?: string;
  amountInCents?: number;
  expected?: Expectation;
  timeline: TimelineEntry[];
  /** Payments applied to a charge (an applied or released paid event), to tell a second one apart. */
  payments: PaymentFact[];
  disputes: Dispute[];
}

/** A charge and a transfer may share an id; the book keeps them apart. */
export function resourceKey(kind: 'transaction' | 'transfer', id: string): string {
  return (kind === 'transaction' ? 't:' : 'o:') + id;
}

export function emptyResource(kind: 'transaction' | 'transfer', id: string): ResourceState {
  return { id, kind, timeline: [], payments: [], disputes: [] };
}

/** The public view of a resource: copies, never the stored arrays. */
export function toBookResource(state: ResourceState): BookResource {
  const resource: BookResource = {
    id: state.id,
    kind: state.kind,
    status: state.status ?? (state.kind === 'transaction' ? 'pending' : 'queued'),
    amountInCents: state.amountInCents ?? state.expected?.amountInCents ?? 0,
    timeline: state.timeline.map((entry) => ({ ...entry, reasons: entry.reasons.slice() })),
    disputes: state.disputes.map((dispute) => ({ ...dispute })),
  };
  if (state.expected !== undefined) resource.expected = { ...state.expected };
  return resource;
}

/** One delivery, with every default resolved by the backend. */
export interface RecordInput {
  resource: ResourceState | undefined;
  event: PixEvent;
  dedupeKey: string;
  channel: BookChannel;
  deliveryId: string | undefined;
  at: number;
  policy: ResolvedPolicy;
  confirmed: boolean | undefined;
  expectationsInUse: boolean;
  /** The open (`held` or `releasing`) held event of this resource with the same dedupe key, if any. */
  openHeld: HeldEvent | undefined;
  /** A fresh held id, called only when the event is held. */
  newHeldId: () => string;
  maxTimeline: number;
}

export interface RecordStep {
  resource: ResourceState;
  result: RecordResult;
  /** A new held event for the backend to keep. */
  held?: HeldEvent;
}

/** Decides one event against its resource and returns the resource's next state. Pure. */
export function recordStep(input: RecordInput): RecordStep {
  const { event, at } = input;
  const current = event.kind === 'transaction' ? event.transaction : event.transfer;
  const before = input.resource ?? emptyResource(event.kind, current.id);
  const entry = (outcome: TimelineOutcome, reasons: TimelineEntry['reasons'], heldId?: string): TimelineEntry => {
    const made: TimelineEntry = {
      name: event.name,
      status: current.status,
      amountInCents: current.amountInCents,
      channel: input.channel,
      at: new Date(at).toISOString(),
      outcome,
      reasons,
    };
    if (input.deliveryId !== undefined) made.deliveryId = input.deliveryId;
    if (heldId !== undefined) made.heldId = heldId;
    return made;
  };

  // A sender's retry of a held event (or its copy on the other channel): the same hold, never a second.
  if (input.openHeld !== undefined) {
    const { heldId, violations } = input.openHeld;
    const reasons = violations.map((violation) => violation.reason);
    return {
      resource: { ...before, timeline: appended(before.timeline, entry('duplicate_hold', reasons, heldId), input.maxTimeline) },
      result: { outcome: 'duplicate_hold', violations: violations.map((violation) => ({ ...violation })), heldId },
    };
  }

  const violations = evaluatePolicy({
    resource: input.resource,
    event,
    receivedAt: at,
    expectationsInUse: input.expectationsInUse,
    confirmed: input.confirmed,
    policy: input.policy,
  });
  const reasons = violations.map((violation) => violation.reason);
  let next: ResourceState = { ...before };
  if (before.amountInCents === undefined && before.expected === undefined) next.amountInCents = current.amountInCents;
  if (event.name === 'transaction_infraction') next.disputes = applyInfraction(before.disputes, event, at);

  if (violations.some((violation) => violation.action === 'hold')) {
    const heldId = input.newHeldId();
    const held: HeldEvent = {
      heldId,
      resourceId: current.id,
      kind: event.kind,
      dedupeKey: input.dedupeKey,
      event: structuredClone(event),
      violations,
      channel: input.channel,
      heldAt: new Date(at).toISOString(),
      state: 'held',
    };
    if (input.deliveryId !== undefined) held.deliveryId = input.deliveryId;
    next.timeline = appended(before.timeline, entry('held', reasons, heldId), input.maxTimeline);
    return { resource: next, result: { outcome: 'held', violations: violations.map((violation) => ({ ...violation })), heldId }, held };
  }

  next = applied(next, event);
  next.timeline = appended(before.timeline, entry('apply', reasons), input.maxTimeline);
  return { resource: next, result: { outcome: 'apply', violations } };
}

/** The end of a release: `ok` applies the held event (forward only) and closes it; otherwise it is held again. */
export function releaseStep(
  resource: ResourceState | undefined,
  held: HeldEvent,
  ok: boolean,
  at: number,
  maxTimeline: number,
): { resource: ResourceState | undefined; held: HeldEvent } {
  const closed: HeldEvent = ok ? { ...held, state: 'released', closedAt: new Date(at).toISOString() } : { ...held, state: 'held' };
  if (resource === undefined) return { resource, held: closed };
  const base = ok ? applied({ ...resource }, held.event) : { ...resource };
  base.timeline = appended(resource.timeline, heldEntry(held, ok ? 'released' : 'release_failed', at), maxTimeline);
  return { resource: base, held: closed };
}

/** A dismissed held event, and its resource with the dismissal on its timeline. */
export function dismissStep(
  resource: ResourceState | undefined,
  held: HeldEvent,
  note: string,
  at: number,
  maxTimeline: number,
): { resource: ResourceState | undefined; held: HeldEvent } {
  const closed: HeldEvent = { ...held, state: 'dismissed', note, closedAt: new Date(at).toISOString() };
  if (resource === undefined) return { resource, held: closed };
  return { resource: { ...resource, timeline: appended(resource.timeline, heldEntry(held, 'dismissed', at), maxTimeline) }, held: closed };
}

/** The resource after an applied event: status and amount only forward, a new payment remembered. */
function applied(state: ResourceState, event: PixEvent): ResourceState {
  const current = event.kind === 'transaction' ? event.transaction : event.transfer;
  if (state.status === undefined || movesForward(event.kind, state.status, current.status)) {
    state.status = current.status;
    state.amountInCents = current.amountInCents;
  }
  if (event.kind === 'transaction' && statesPayment(event)) {
    const payment = paymentOf(event);
    // Bounded: a payment older than the last few would read as a second one, which errs toward a hold.
    if (!state.payments.some((earlier) => samePayment(earlier, payment)))
      state.payments = [...state.payments.slice(-(maxPayments - 1)), payment];
  }
  return state;
}

function heldEntry(held: HeldEvent, outcome: TimelineOutcome, at: number): TimelineEntry {
  const current = held.event.kind === 'transaction' ? held.event.transaction : held.event.transfer;
  const entry: TimelineEntry = {
    name: held.event.name,
    status: current.status,
    amountInCents: current.amountInCents,
    channel: held.channel,
    at: new Date(at).toISOString(),
    outcome,
    reasons: held.violations.map((violation) => violation.reason),
    heldId: held.heldId,
  };
  if (held.deliveryId !== undefined) entry.deliveryId = held.deliveryId;
  return entry;
}

/** The timeline with `entry` added, the oldest entries dropped beyond `max`. */
function appended(timeline: readonly TimelineEntry[], entry: TimelineEntry, max: number): TimelineEntry[] {
  const start = Math.max(0, timeline.length + 1 - max);
  const next = timeline.slice(start);
  next.push(entry);
  return next;
}
