import type { PayloadVariant, PixEventName } from '../index.js';
import { buildPayload, deliver, type PayloadOptions } from '../testing/index.js';
import type { DeliveryFaults } from './delivery-faults.js';
import { signDelivery, type EmulatorSignature } from './delivery-signature.js';
import type { DeliveryRecord, EmulatorDeliveryAttempt, WebhookRecord } from './emulator-records.js';
import type { RetryPolicy } from '../shared/retry-options.js';

/** The waits between a policy's attempts (1 s, 2 s, 4 s, 8 s by default). */
export function retrySchedule(retry: RetryPolicy): number[] {
  return Array.from({ length: retry.attempts - 1 }, (_, i) => retry.delayAfter(i + 1));
}

export interface DispatchTarget {
  url: string;
  scope: 'user' | 'postback';
  webhook?: WebhookRecord;
}

interface DispatcherOptions {
  variant: PayloadVariant;
  webhookSecret: string;
  signature: EmulatorSignature;
  faults: DeliveryFaults;
  retry: RetryPolicy;
  timeoutMs: number;
  now: () => number;
  /** Aborts waits and requests in flight when the emulator closes. */
  closed: AbortSignal;
  onSettled: (delivery: DeliveryRecord) => void;
  onAttempt: (delivery: DeliveryRecord, attempt: EmulatorDeliveryAttempt) => void;
}

class DroppedByFault extends Error {}

/**
 * Builds each event with the test kit's payload builders and sends it with its delivery simulator:
 * signed with the webhook secret, 5 attempts with exponential backoff unless `retry` says otherwise.
 */
export function createWebhookDispatcher(options: DispatcherOptions) {
  const log: DeliveryRecord[] = [];
  const inFlight = new Set<Promise<void>>();
  let sequence = 0;
  const nextId = () => `dlv_${String(++sequence).padStart(6, '0')}`;

  const sleep = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      const signals = signal ? AbortSignal.any([signal, options.closed]) : options.closed;
      if (signals.aborted) return resolve();
      const onAbort = () => (clearTimeout(timer), resolve());
      const timer = setTimeout(() => (signals.removeEventListener('abort', onAbort), resolve()), ms);
      signals.addEventListener('abort', onAbort, { once: true });
    });

  /**
   * One attempt: signed now (a timestamped signature must be fresh on a retry), or hit by a delivery
   * fault instead of reaching the receiver. `hit` tells the log which fault, if any, answered.
   */
  function attemptFetch(record: DeliveryRecord, hit: { fault?: EmulatorDeliveryAttempt['fault'] }): typeof globalThis.fetch {
    return async (input, init) => {
      const signal = init?.signal ? AbortSignal.any([init.signal, options.closed]) : options.closed;
      const fault = options.faults.take(record.url);
      if (fault) hit.fault = { id: fault.id, action: fault.action };
      else delete hit.fault;
      if (fault?.action === 'fail') {
        const status = fault.status ?? 500;
        return new Response(
          JSON.stringify({ error: 'INJECTED_FAULT', message: `Delivery fault ${fault.id}: answered ${status} in the receiver's place.` }),
          { status },
        );
      }
      if (fault?.action === 'drop')
        throw new TypeError('fetch failed', { cause: new DroppedByFault(`ECONNRESET (dropped by delivery fault ${fault.id})`) });
      if (fault?.action === 'delay') {
        await sleep(fault.delayMs ?? 0, signal);
        signal.throwIfAborted();
      }
      if (fault?.action === 'timeout') {
        // Never answers: the attempt ends when the sender's own timeout aborts it.
        return new Promise<Response>((_, reject) => {
          if (signal.aborted) return reject(signal.reason as Error);
          signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        });
      }
      const header = signDelivery(options.signature, options.webhookSecret, record.body, options.now());
      const headers = new Headers(init?.headers);
      headers.set(header.name, header.value);
      return globalThis.fetch(input, { ...init, headers, signal });
    };
  }

  function start(record: DeliveryRecord, webhook: WebhookRecord | undefined): void {
    log.push(record);
    const hit: { fault?: EmulatorDeliveryAttempt['fault'] } = {};
    const run = deliver({
      url: record.url,
      body: record.body,
      signature: null,
      retry: { attempts: options.retry.attempts, backoff: retrySchedule(options.retry) },
      timeoutMs: options.timeoutMs,
      headers: { 'user-agent': 'pixhook-emulator' },
      fetch: attemptFetch(record, hit),
      sleep,
      onAttempt: (attempt) => {
        const entry: EmulatorDeliveryAttempt = { ...attempt, ...(hit.fault && { fault: hit.fault }) };
        record.attempts.push(entry);
        safely(() => options.onAttempt(record, entry));
      },
    }).then(
      (result) => settle(record, webhook, result.delivered),
      () => settle(record, webhook, false),
    );
    const tracked = run.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  }

  function settle(record: DeliveryRecord, webhook: WebhookRecord | undefined, delivered: boolean): void {
    record.delivered = delivered;
    record.state = delivered ? 'delivered' : 'gave_up';
    record.settledAt = new Date(options.now()).toISOString();
    if (webhook) updateMetrics(webhook, delivered, record);
    safely(() => options.onSettled(record));
  }

  function send(target: DispatchTarget, event: PixEventName, resourceId: string, payload: PayloadOptions): void {
    const body = JSON.stringify(
      buildPayload(event, {
        ...payload,
        variant: options.variant,
        id: resourceId,
        scope: target.scope,
        timestamp: new Date(options.now()),
      }),
    );
    const record: DeliveryRecord = {
      id: nextId(),
      event,
      url: target.url,
      scope: target.scope,
      resourceId,
      body,
      state: 'pending',
      attempts: [],
      ...(target.webhook && { webhookId: target.webhook.id }),
    };
    start(record, target.webhook);
  }

  function updateMetrics(webhook: WebhookRecord, delivered: boolean, record: DeliveryRecord): void {
    const previous = webhook.totalDeliveries;
    webhook.totalDeliveries = previous + 1;
    if (delivered) webhook.successfulDeliveries++;
    webhook.successRate = Math.round((webhook.successfulDeliveries / webhook.totalDeliveries) * 10_000) / 100;
    const took = record.attempts.reduce((sum, a) => sum + a.durationMs, 0) / Math.max(1, record.attempts.length);
    webhook.averageResponseTimeMs = Math.round(((webhook.averageResponseTimeMs * previous + took) / webhook.totalDeliveries) * 10) / 10;
    webhook.lastDeliveryAt = new Date(options.now()).toISOString();
  }

  return {
    /** Sends `event` to every target, each delivery on its own (a slow receiver holds no other back). */
    dispatch(event: PixEventName, resourceId: string, targets: readonly DispatchTarget[], payload: PayloadOptions): void {
      for (const target of targets) send(target, event, resourceId, payload);
    },
    /** Sends a settled delivery's exact body again, as a dashboard's "resend" would: a new delivery with its own 5 attempts. */
    redeliver(id: string, webhook: WebhookRecord | undefined): DeliveryRecord | undefined {
      const original = log.find((d) => d.id === id);
      if (!original) return undefined;
      const { attempts: _attempts, delivered: _delivered, settledAt: _settledAt, ...rest } = original;
      const record: DeliveryRecord = { ...rest, id: nextId(), state: 'pending', attempts: [], redeliveryOf: original.id };
      start(record, webhook);
      return record;
    },
    deliveries: (): readonly DeliveryRecord[] => log,
    /** Resolves when every delivery started so far (and any it led to) has settled. */
    async idle(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}

// A listener that throws (a broken log sink) must not stop the deliveries.
function safely(run: () => void): void {
  try {
    run();
  } catch {
    // Ignored on purpose: the delivery log keeps the record either way.
  }
}
