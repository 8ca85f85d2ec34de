import type { PixEventName } from '../events/event-names.js';
import type { PayloadVariant } from '../events/event-types.js';
import { buildPayload, deliver, type PayloadOptions } from '../testing/index.js';
import type { DeliveryRecord, WebhookRecord } from './emulator-records.js';

export interface DispatchTarget {
  url: string;
  scope: 'user' | 'postback';
  webhook?: WebhookRecord;
}

export interface DispatcherOptions {
  variant: PayloadVariant;
  webhookSecret: string;
  backoffMs: number;
  timeoutMs: number;
  now: () => number;
  /** Aborts waits and requests in flight when the emulator closes. */
  closed: AbortSignal;
  onSettled: (delivery: DeliveryRecord) => void;
}

/**
 * Builds each event with the test kit's payload builders and sends it with its delivery simulator:
 * signed with the webhook secret, 5 attempts, exponential backoff.
 */
export function createWebhookDispatcher(options: DispatcherOptions) {
  const log: DeliveryRecord[] = [];
  const inFlight = new Set<Promise<void>>();
  let sequence = 0;

  const sleep = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      const signals = signal ? AbortSignal.any([signal, options.closed]) : options.closed;
      if (signals.aborted) return resolve();
      const timer = setTimeout(resolve, ms);
      signals.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });
  const fetchUntilClosed: typeof globalThis.fetch = (input, init) => {
    const signal = init?.signal ? AbortSignal.any([init.signal, options.closed]) : options.closed;
    return globalThis.fetch(input, { ...init, signal });
  };

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
      id: `dlv_${String(++sequence).padStart(6, '0')}`,
      event,
      url: target.url,
      scope: target.scope,
      resourceId,
      body,
      attempts: [],
      ...(target.webhook && { webhookId: target.webhook.id }),
    };
    log.push(record);
    const run = deliver({
      url: target.url,
      body,
      secret: options.webhookSecret,
      attempts: 5,
      backoffMs: options.backoffMs,
      timeoutMs: options.timeoutMs,
      headers: { 'user-agent': 'pixhook-emulator' },
      fetch: fetchUntilClosed,
      sleep,
      onAttempt: (attempt) => record.attempts.push(attempt),
    }).then(
      (result) => {
        record.delivered = result.delivered;
        if (target.webhook) updateMetrics(target.webhook, result.delivered, record);
        options.onSettled(record);
      },
      () => {
        record.delivered = false;
        options.onSettled(record);
      },
    );
    const tracked = run.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
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
    deliveries: (): readonly DeliveryRecord[] => log,
    /** Resolves when every delivery started so far (and any it led to) has settled. */
    async idle(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
