import type { PixEvent } from '../events/event-types.js';
import { appended, reasonsOf, timelineEntry } from './timeline-entry.js';
import { applyInfraction } from './dispute-update.js';
import {
  evaluatePolicy,
  moneyFactOf,
  movesForward,
  paymentFact,
  sameFact,
  samePayment,
  statesPayment,
  statesStatus,
  type MoneyFact,
  type PaymentFact,
  type RefundFact,
} from './evaluate-policy.js';
import type {
  ReleaseTrail,
  BookChannel,
  BookResource,
  Dispute,
  Expectation,
  HeldEvent,
  RecordResult,
  TimelineEntry,
  TimelineOutcome,
} from './payment-book.js';
import { defaultPolicy, type ResolvedPolicy } from './payment-policy.js';
import type { Violation } from '../events/violation.js';

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
  /** Refunds applied to a charge: a refund the book applied is answered `duplicate`, never run again. Absent in older stored states. */
  refunds?: RefundFact[];
  /** The money facts of this resource's open held events: a copy of one (another channel, another shape) is the same hold. */
  holds?: OpenHold[];
  disputes: Dispute[];
}

/** An open held event's fact, kept on its resource so every copy of that fact finds the one hold. */
interface OpenHold {
  heldId: string;
  fact: MoneyFact;
  violations: Violation[];
  /** Set when a refund (a returned devolução) was applied to the resource while this hold was open. */
  refundedSince?: true;
}

/** True when the book already applied the fact `event` states (a payment or a refund): its handlers must not run again. */
export function alreadyApplied(state: ResourceState | undefined, event: PixEvent): boolean {
  const fact = moneyFactOf(event);
  return state !== undefined && fact !== undefined && factApplied(state, fact);
}

/** True when `state` applied `fact` (read in place: no money fact is made of what is stored). */
function factApplied(state: ResourceState, fact: MoneyFact): boolean {
  if (fact.kind === 'payment') {
    for (const payment of state.payments) if (samePayment(payment, fact)) return true;
    return false;
  }
  for (const refund of state.refunds ?? noRefunds) {
    if (
      fact.id !== undefined && refund.refundId !== undefined ? fact.id === refund.refundId : fact.amountInCents === refund.amountInCents
    ) {
      return true;
    }
  }
  return false;
}

const noRefunds: readonly RefundFact[] = Object.freeze([]);

/** A charge and a transfer may share an id; the book keeps them apart. */
export function resourceKey(kind: 'transaction' | 'transfer', id: string): string {
  return (kind === 'transaction' ? 't:' : 'o:') + id;
}

/** A resource never seen: its empty lists are shared and frozen until a step writes a list of its own. */
export function emptyResource(kind: 'transaction' | 'transfer', id: string): ResourceState {
  return { id, kind, timeline: noEntries, payments: noPayments, disputes: noDisputes };
}

const noEntries = Object.freeze([]) as unknown as TimelineEntry[];
const noPayments = Object.freeze([]) as unknown as PaymentFact[];
const noDisputes = Object.freeze([]) as unknown as Dispute[];

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

/** Decides one event against its resource and returns the resource's next state. Pure: the given state is never changed. */
export function recordStep(input: RecordInput): RecordStep {
  const { event, at } = input;
  const known = input.resource;
  const current = event.kind === 'transaction' ? event.transaction : event.transfer;

  // A fact the book applied already (another channel, another payload shape, a store that forgot its done
  // mark): answered `duplicate`, whatever the dedupe key. A short-form payment learns its endToEndId here.
  const fact = moneyFactOf(event);
  if (fact !== undefined && known !== undefined && factApplied(known, fact)) {
    return { resource: withFactId(known, fact), result: { outcome: 'duplicate', violations: [] } };
  }

  // A sender's retry of a held event, or any copy of its fact: the same hold, never a second.
  const sameHold = input.openHeld ?? (fact === undefined ? undefined : known?.holds?.find((hold) => sameFact(hold.fact, fact)));
  if (sameHold !== undefined) {
    const { heldId, violations } = sameHold;
    const before = known ?? emptyResource(event.kind, current.id);
    const entry = timelineEntry(input, 'duplicate_hold', reasonsOf(violations), heldId);
    return {
      resource: { ...before, timeline: appended(before.timeline, entry, input.maxTimeline) },
      result: { outcome: 'duplicate_hold', violations: violations.map((violation) => ({ ...violation })), heldId },
    };
  }

  const violations = evaluatePolicy({
    resource: known,
    event,
    receivedAt: at,
    expectationsInUse: input.expectationsInUse,
    confirmed: input.confirmed,
    policy: input.policy,
    fact,
  });
  // A resource seen for the first time is made here, whole (every field the step writes, so none is added later):
  // it is the next state itself. A known one is copied; the given state is never changed.
  let next: ResourceState;
  if (known === undefined) {
    next = {
      id: current.id,
      kind: event.kind,
      status: undefined,
      amountInCents: current.amountInCents,
      timeline: noEntries,
      payments: noPayments,
      disputes: noDisputes,
    };
  } else {
    next = { ...known };
    if (next.amountInCents === undefined && next.expected === undefined) next.amountInCents = current.amountInCents;
  }
  const timeline = next.timeline;
  if (event.name === 'transaction_infraction') next.disputes = applyInfraction(next.disputes, event, at);

  if (violations.length > 0 && violations.some((violation) => violation.action === 'hold')) {
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
    if (fact !== undefined) next.holds = [...(next.holds ?? []), { heldId, fact, violations: violations.map((v) => ({ ...v })) }];
    next.timeline = appended(timeline, timelineEntry(input, 'held', reasonsOf(violations), heldId), input.maxTimeline);
    return { resource: next, result: { outcome: 'held', violations: violations.map((violation) => ({ ...violation })), heldId }, held };
  }

  const after = applied(next, event, fact);
  after.timeline = appended(timeline, timelineEntry(input, 'apply', reasonsOf(violations)), input.maxTimeline);
  return { resource: after, result: { outcome: 'apply', violations } };
}

/**
 * The commit of an event `recordStep` judged `apply`, once its handlers succeeded: the step again on the
 * resource as it is now, without judging again (the handlers ran; the entry keeps the reasons judged). A fact
 * the book applied meanwhile is not applied twice; undefined when nothing is to be written.
 */
export function applyStep(input: RecordInput, violations: readonly Violation[]): ResourceState | undefined {
  const step = recordStep({ ...input, openHeld: undefined, policy: flagAll });
  if (step.result.outcome === 'duplicate') return step.resource;
  if (step.result.outcome !== 'apply') return undefined;
  const last = step.resource.timeline[step.resource.timeline.length - 1] as TimelineEntry;
  last.reasons = violations.map((violation) => violation.reason);
  return step.resource;
}

// The commit judges nothing: every reason is a flag, so the step applies.
const flagAll = Object.fromEntries(Object.keys(defaultPolicy).map((reason) => [reason, 'flag'])) as unknown as ResolvedPolicy;

/** The end of a release: `ok` applies the held event (forward only) and closes it; otherwise it is held again. */
export function releaseStep(
  resource: ResourceState | undefined,
  held: HeldEvent,
  ok: boolean,
  at: number,
  maxTimeline: number,
  trail: ReleaseTrail = {},
): { resource: ResourceState | undefined; held: HeldEvent } {
  const closed: HeldEvent = ok
    ? withTrail({ ...held, state: 'released', closedAt: new Date(at).toISOString() }, trail)
    : { ...held, state: 'held' };
  if (resource === undefined) return { resource, held: closed };
  const base = ok ? withoutHold(applied({ ...resource }, held.event), held.heldId) : { ...resource };
  base.timeline = appended(
    resource.timeline,
    withTrail(heldEntry(held, ok ? 'released' : 'release_failed', at), ok ? trail : {}),
    maxTimeline,
  );
  return { resource: base, held: closed };
}

/**
 * Why a held event must not be released: the book applied its fact already (through another copy of it), or it
 * is a payment whose charge was refunded (or its money returned) since it was held: that money is gone.
 */
export function releaseRefusal(
  resource: ResourceState | undefined,
  held: HeldEvent,
): 'already_applied' | 'refunded_since_held' | undefined {
  if (alreadyApplied(resource, held.event)) return 'already_applied';
  const hold = resource?.holds?.find((open) => open.heldId === held.heldId);
  return hold?.refundedSince === true && statesPayment(held.event) ? 'refunded_since_held' : undefined;
}

function withTrail<T extends { note?: string; by?: string }>(target: T, trail: ReleaseTrail): T {
  if (trail.note !== undefined) target.note = trail.note;
  if (trail.by !== undefined) target.by = trail.by;
  return target;
}

/** A dismissed held event, and its resource with the dismissal on its timeline. */
export function dismissStep(
  resource: ResourceState | undefined,
  held: HeldEvent,
  note: string,
  at: number,
  maxTimeline: number,
  by?: string,
): { resource: ResourceState | undefined; held: HeldEvent } {
  const trail: ReleaseTrail = by === undefined ? { note } : { note, by };
  const closed: HeldEvent = withTrail({ ...held, state: 'dismissed', closedAt: new Date(at).toISOString() }, trail);
  if (resource === undefined) return { resource, held: closed };
  const next = withoutHold({ ...resource }, held.heldId);
  next.timeline = appended(resource.timeline, withTrail(heldEntry(held, 'dismissed', at), trail), maxTimeline);
  return { resource: next, held: closed };
}

/**
 * The resource after an applied event: status and amount only forward, a new payment or refund remembered.
 * A dispute is not a status change: an infraction before the payment leaves the charge unpaid, so the
 * payment is still judged as new. Nor is a devolução still processing or not made (`statesStatus`).
 */
function applied(state: ResourceState, event: PixEvent, fact: MoneyFact | undefined = moneyFactOf(event)): ResourceState {
  const current = event.kind === 'transaction' ? event.transaction : event.transfer;
  if (statesStatus(event) && (state.status === undefined || movesForward(event.kind, state.status, current.status))) {
    state.status = current.status;
    state.amountInCents = current.amountInCents;
  }
  if (fact === undefined || factApplied(state, fact)) return fact === undefined ? state : withFactId(state, fact);
  // Bounded: a fact older than the last few would read as a new one, which errs toward a hold (payments) or a run (refunds).
  if (fact.kind === 'payment') {
    // One literal with every field it has: a field added afterwards would be a second object to keep.
    const { id, payer, amountInCents } = fact;
    const payment: PaymentFact =
      id === undefined
        ? payer === undefined
          ? { amountInCents }
          : { amountInCents, payer }
        : payer === undefined
          ? { amountInCents, endToEndId: id }
          : { amountInCents, endToEndId: id, payer };
    state.payments = state.payments.length === 0 ? [payment] : [...state.payments.slice(-(maxPayments - 1)), payment];
  } else {
    const refund: RefundFact =
      fact.id === undefined ? { amountInCents: fact.amountInCents } : { refundId: fact.id, amountInCents: fact.amountInCents };
    state.refunds = [...(state.refunds ?? []).slice(-(maxPayments - 1)), refund];
    // Money returned: every payment held now would, released, run for money that is gone.
    if (current.status === 'refunded' && state.holds !== undefined) {
      state.holds = state.holds.map((hold) => (hold.fact.kind === 'payment' ? { ...hold, refundedSince: true } : hold));
    }
  }
  return state;
}

/** A known fact without an id, met again with one, keeps that id: a later, different id is then a second payment. */
function withFactId(state: ResourceState, fact: MoneyFact): ResourceState {
  if (fact.id === undefined) return state;
  if (fact.kind === 'payment') {
    const index = state.payments.findIndex((p) => p.endToEndId === undefined && sameFact(paymentFact(p), fact));
    if (index === -1 || state.payments.some((p) => p.endToEndId === fact.id)) return state;
    const payments = state.payments.slice();
    payments[index] = { ...(payments[index] as PaymentFact), endToEndId: fact.id };
    return { ...state, payments };
  }
  const refunds = state.refunds ?? [];
  const index = refunds.findIndex((r) => r.refundId === undefined && r.amountInCents === fact.amountInCents);
  if (index === -1 || refunds.some((r) => r.refundId === fact.id)) return state;
  const next = refunds.slice();
  next[index] = { refundId: fact.id, amountInCents: fact.amountInCents };
  return { ...state, refunds: next };
}

function withoutHold(state: ResourceState, heldId: string): ResourceState {
  if (state.holds !== undefined) state.holds = state.holds.filter((hold) => hold.heldId !== heldId);
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
