import type { RetryPolicy } from '../../shared/retry-options.js';
import type { DeliveryFaults } from '../delivery-faults.js';
import { attemptWebhook, waitUnlessClosed } from '../post-webhook.js';
import type { EmulatorPix, EmulatorWebhook } from './api-pix-records.js';

/** How a delivery's body is shaped: the standard's `{ pix: [...] }`, or what some PSPs really send. */
export type ApiPixBodyShape = 'standard' | 'bare-array' | 'devolucoes-object';

export interface ApiPixDeliveryAttempt {
  at: string;
  /** 0 when no answer came (dropped, timed out, refused). */
  status: number;
  error?: string;
}

/** One call to `{webhookUrl}/pix`: the Pix it carried, its attempts, how it ended. */
export interface ApiPixDelivery {
  id: string;
  url: string;
  key: string;
  endToEndIds: string[];
  shape: ApiPixBodyShape;
  /** `disabled`: not sent, the webhook was disabled after too many failures. */
  state: 'pending' | 'delivered' | 'failed' | 'disabled';
  attempts: ApiPixDeliveryAttempt[];
  body: string;
}

interface DeliveriesConfig {
  tls: { cert: string; key: string; ca: string };
  retry: RetryPolicy;
  timeoutMs: number;
  groupWindowMs: number;
  maxGroup: number;
  now: () => number;
  faults: DeliveryFaults;
  /** The next delivery's body shape (a shape fault), or `standard`. */
  takeShape: () => ApiPixBodyShape;
  /** Failed attempts in a row after which a webhook is disabled; Infinity: never. */
  disableAfterFailures: () => number;
  closed: AbortSignal;
}

function bodyOf(items: Record<string, unknown>[], shape: ApiPixBodyShape): string {
  if (shape === 'bare-array') return JSON.stringify(items);
  if (shape === 'devolucoes-object') {
    return JSON.stringify({
      pix: items.map((item) =>
        Array.isArray(item['devolucoes']) && item['devolucoes'].length > 0 ? { ...item, devolucoes: item['devolucoes'][0] } : item,
      ),
    });
  }
  return JSON.stringify({ pix: items });
}

/** Groups the Pix of one webhook received within `groupWindowMs` into one call, and sends it with retries. */
export function createApiPixDeliveries(config: DeliveriesConfig) {
  const log: ApiPixDelivery[] = [];
  const inFlight = new Set<Promise<void>>();
  const groups = new Map<
    string,
    { webhook: EmulatorWebhook; items: Record<string, unknown>[]; ids: string[]; timer: ReturnType<typeof setTimeout> }
  >();
  let sequence = 0;

  function track(work: Promise<void>): void {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
  }

  const wait = (ms: number) => waitUnlessClosed(ms, config.closed);

  async function deliver(delivery: ApiPixDelivery, webhook: EmulatorWebhook): Promise<void> {
    for (let attempt = 1; attempt <= config.retry.attempts && !config.closed.aborted; attempt++) {
      if (webhook.disabledAt !== undefined) {
        delivery.state = delivery.attempts.length === 0 ? 'disabled' : 'failed';
        return;
      }
      const at = new Date(config.now()).toISOString();
      const fault = config.faults.take(delivery.url);
      const { status, error } = await attemptWebhook(
        // The PSP's own client certificate: the merchant checks it against the CA.
        { url: delivery.url, body: delivery.body, tls: config.tls, timeoutMs: config.timeoutMs, closed: config.closed },
        fault,
      );
      delivery.attempts.push({ at, status, ...(error !== undefined && { error }) });
      if (status >= 200 && status < 300) {
        webhook.failures = 0;
        delivery.state = 'delivered';
        return;
      }
      webhook.failures++;
      if (webhook.failures >= config.disableAfterFailures()) webhook.disabledAt = config.now();
      if (attempt < config.retry.attempts && webhook.disabledAt === undefined) await wait(config.retry.delayAfter(attempt));
    }
    delivery.state = 'failed';
  }

  function flush(key: string): void {
    const group = groups.get(key);
    if (!group) return;
    groups.delete(key);
    clearTimeout(group.timer);
    const shape = config.takeShape();
    const base = group.webhook.webhookUrl.replace(/\/+$/, '');
    const delivery: ApiPixDelivery = {
      id: `dlv_${String(++sequence).padStart(5, '0')}`,
      url: `${base}/pix`,
      key: group.webhook.chave,
      endToEndIds: group.ids,
      shape,
      state: group.webhook.disabledAt === undefined ? 'pending' : 'disabled',
      attempts: [],
      body: bodyOf(group.items, shape),
    };
    log.push(delivery);
    if (delivery.state === 'pending') track(deliver(delivery, group.webhook));
  }

  return {
    /** Queues one Pix (as its JSON now) for the webhook of its key, if any. */
    enqueue(webhook: EmulatorWebhook | undefined, pix: EmulatorPix, json: Record<string, unknown>): void {
      if (!webhook || config.closed.aborted) return;
      const key = webhook.chave;
      let group = groups.get(key);
      if (!group) {
        group = { webhook, items: [], ids: [], timer: setTimeout(() => flush(key), config.groupWindowMs) };
        groups.set(key, group);
      }
      group.items.push(json);
      group.ids.push(pix.endToEndId);
      if (group.items.length >= config.maxGroup) flush(key);
    },
    deliveries: (): readonly ApiPixDelivery[] => log,
    /** Resolves once every queued Pix is sent and every delivery settled. */
    async idle(): Promise<void> {
      while (groups.size > 0 || inFlight.size > 0) {
        for (const key of [...groups.keys()]) flush(key);
        await Promise.allSettled([...inFlight]);
      }
    },
    stop(): void {
      for (const group of groups.values()) clearTimeout(group.timer);
      groups.clear();
    },
  };
}
