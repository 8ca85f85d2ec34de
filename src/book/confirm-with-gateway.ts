import type { PixEvent } from '../events/event-types.js';
import { isForwardTransition } from '../events/status-order.js';
import { describeError } from '../shared/describe-error.js';
import { checkFunction, checkTimeoutMs, mustBe } from '../shared/option-checks.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import { withTimeout } from '../shared/with-timeout.js';

// `confirm`: before a money event runs, the gateway's own record is read again, so an
// event signed with a leaked secret, or a genuine one meant for another merchant, never moves money.

/** The events that move money, and so are read again from the gateway under `confirm`. */
export const confirmableEvents = ['transaction_paid', 'transaction_refunded', 'transfer_completed', 'pix_received'] as const;
export type ConfirmableEvent = (typeof confirmableEvents)[number];

/**
 * What `confirm` needs of a client: `pixhook/client`'s `getTransaction` (a `PixClient` fits), or the API Pix
 * client's `getPix` (`createApiPixClient`, which re-reads `GET /pix/{e2eid}` before a `pix_received` runs).
 */
export interface ConfirmClient {
  getTransaction?(id: string, options?: { signal?: AbortSignal }): Promise<{ status: string; amountInCents?: number | undefined }>;
  getPix?(endToEndId: string, options?: { signal?: AbortSignal }): Promise<{ amountInCents: number }>;
  /** The last `X-RateLimit-*` figures: no read is sent while the gateway said none is left. */
  rateLimit?(): { operation: string; remaining: number | undefined; resetAt: number | undefined } | undefined;
}

/** `confirm: { client, … }`: the client plus how long a read may take and which events are read. */
export interface ConfirmOptions {
  client: ConfirmClient;
  /**
   * A read (with the client's own retries) that has not answered by then counts as the gateway being
   * unavailable (503 `gateway_unavailable`). Default 5 000 ms, under the inline `deadlineMs`.
   */
  timeoutMs?: number;
  /** The events read again. Default every money event: `transaction_paid`, `transaction_refunded`, `transfer_completed`. */
  events?: readonly ConfirmableEvent[];
}

/** `createReceiver({ book, confirm })`: a client (e.g. `createClient(…)`), or `{ client, timeoutMs?, events? }`. */
export type ConfirmSetting = ConfirmClient | ConfirmOptions;

/**
 * What the gateway said: `confirmed` true (it agrees), false (a `not_confirmed`), or undefined (the event
 * is not read: not a money event, or re-created from a gateway read already); or that it could not be read.
 */
export type ConfirmOutcome = { ok: true; confirmed: boolean | undefined } | { ok: false; hint: string };

export interface ResolvedConfirm {
  client: ConfirmClient;
  timeoutMs: number;
  events: ReadonlySet<string>;
}

const notRead: ConfirmOutcome = { ok: true, confirmed: undefined };

/** The checked `confirm` option; undefined when not given. A setup error names what is wrong. */
export function resolveConfirm(value: unknown): ResolvedConfirm | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null) {
    throw mustBe('confirm', 'a pixhook/client client (createClient(…)) or { client, timeoutMs?, events? }', value);
  }
  const given = value as Partial<ConfirmOptions> & Partial<ConfirmClient>;
  const isClient = typeof given.getTransaction === 'function' || typeof given.getPix === 'function';
  const options: Partial<ConfirmOptions> = isClient ? { client: given as ConfirmClient } : given;
  const client = options.client;
  if (typeof client?.getPix !== 'function')
    checkFunction(
      'confirm.client.getTransaction',
      client?.getTransaction,
      'a function (`client` is a pixhook/client PixClient or an API Pix client)',
    );
  const events = options.events ?? confirmableEvents;
  if (!Array.isArray(events) || events.length === 0 || events.some((name) => !(confirmableEvents as readonly unknown[]).includes(name))) {
    throw new PixhookConfigError(`pixhook: \`confirm.events\` must be a non-empty list of ${confirmableEvents.join(', ')}.`);
  }
  return {
    client: client as ConfirmClient,
    timeoutMs: checkTimeoutMs('confirm.timeoutMs', options.timeoutMs, 5_000),
    events: new Set(events),
  };
}

/**
 * Reads the event's resource from the gateway. Never rejects: a 404 is a `not_confirmed` (the gateway
 * knows no such charge for this merchant); no answer, a 5xx, a 429, a spent read budget or an
 * unreadable record is `ok: false`, and the sender's retry asks again.
 */
export async function confirmWithGateway(confirm: ResolvedConfirm, event: PixEvent, now: number): Promise<ConfirmOutcome> {
  // A reconciled event was built from a gateway read a moment ago; reading it again would only spend the budget.
  if (!confirm.events.has(event.name) || event.source === 'reconcile') return notRead;
  if (event.name === 'pix_received') return confirmPix(confirm, event.pix.endToEndId, event.pix.amountInCents);
  // A client that reads only Pix (the API Pix client) has no record of a gateway event: not read.
  if (confirm.client.getTransaction === undefined) return notRead;
  const getTransaction = confirm.client.getTransaction.bind(confirm.client);
  const stated = event.kind === 'transaction' ? event.transaction : event.transfer;
  const limited = spentUntil(confirm.client, now);
  if (limited !== undefined) return { ok: false, hint: `gateway rate limit: no read left until ${new Date(limited).toISOString()}` };
  let record: { status: string; amountInCents?: number | undefined };
  try {
    // The signal asks the client to stop; the race bounds the read even when the client ignores it.
    const reading = Promise.resolve().then(() => getTransaction(stated.id, { signal: AbortSignal.timeout(confirm.timeoutMs) }));
    reading.catch(() => {});
    record = await withTimeout(reading, confirm.timeoutMs, 'gateway read');
  } catch (error) {
    if (isNotFound(error)) return { ok: true, confirmed: false };
    return { ok: false, hint: 'gateway read: ' + describeError(error) };
  }
  if (typeof record !== 'object' || record === null || typeof record.status !== 'string') {
    return { ok: false, hint: 'gateway read: the record carries no status' };
  }
  return { ok: true, confirmed: gatewayAgrees(event, record) };
}

/** `GET /pix/{e2eid}`: the PSP agrees when it knows the Pix with the same amount; a 404 is `not_confirmed`. */
async function confirmPix(confirm: ResolvedConfirm, endToEndId: string, amountInCents: number): Promise<ConfirmOutcome> {
  // A gateway client cannot read a Pix: nothing to confirm against.
  if (confirm.client.getPix === undefined) return notRead;
  const getPix = confirm.client.getPix.bind(confirm.client);
  let record: { amountInCents: number };
  try {
    const reading = Promise.resolve().then(() => getPix(endToEndId, { signal: AbortSignal.timeout(confirm.timeoutMs) }));
    reading.catch(() => {});
    record = await withTimeout(reading, confirm.timeoutMs, 'PSP read');
  } catch (error) {
    if (isNotFound(error)) return { ok: true, confirmed: false };
    return { ok: false, hint: 'PSP read: ' + describeError(error) };
  }
  if (typeof record !== 'object' || record === null || typeof record.amountInCents !== 'number') {
    return { ok: false, hint: 'PSP read: the Pix carries no amount' };
  }
  return { ok: true, confirmed: record.amountInCents === amountInCents };
}

/** The gateway agrees when the amount is equal and its status is the event's, or further forward. */
export function gatewayAgrees(event: PixEvent, record: { status: string; amountInCents?: number | undefined }): boolean {
  const stated = event.kind === 'transaction' ? event.transaction : event.transfer;
  if (record.amountInCents !== stated.amountInCents) return false;
  if (record.status === stated.status) return true;
  const forward =
    event.kind === 'transaction'
      ? isForwardTransition({ kind: 'transaction', from: stated.status, to: record.status })
      : isForwardTransition({ kind: 'transfer', from: stated.status, to: record.status });
  return forward === true;
}

/** When the client's last figures for a read say none is left, the moment they reset. */
function spentUntil(client: ConfirmClient, now: number): number | undefined {
  let info: ReturnType<NonNullable<ConfirmClient['rateLimit']>>;
  try {
    info = client.rateLimit?.();
  } catch {
    return undefined;
  }
  if (info === undefined || !/^GET \/api\/v1\//.test(info.operation)) return undefined;
  if (info.remaining === undefined || info.remaining > 0 || info.resetAt === undefined || info.resetAt <= now) return undefined;
  return info.resetAt;
}

function isNotFound(error: unknown): boolean {
  const found = error as { status?: unknown; code?: unknown; name?: unknown } | null;
  return found?.status === 404 && (found.code === undefined || found.code === 'api_error' || found.name === 'ApiPixNotFoundError');
}
