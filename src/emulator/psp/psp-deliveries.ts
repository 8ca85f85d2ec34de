import { request } from 'node:http';
import type { DeliveryFaults } from '../delivery-faults.js';
import type { PspWebhook } from './psp-profile.js';

export interface PspDeliveryAttempt {
  at: string;
  /** 0 when no answer came (dropped, timed out, refused). */
  status: number;
  error?: string;
}

/** One webhook the emulator sends (with its retries): what it carried and how it ended. */
export interface PspDelivery {
  id: string;
  chargeId: string;
  /** What it told: the payment, a duplicate of it, or a late `pending` after it. */
  kind: 'paid' | 'duplicate' | 'late-pending';
  url: string;
  headers: Record<string, string>;
  body: string;
  /** `paused`: waiting for the queue to be re-enabled (Asaas after 15 failures in a row). */
  state: 'pending' | 'delivered' | 'failed' | 'paused';
  attempts: PspDeliveryAttempt[];
}

interface DeliveriesConfig {
  scheduleMs: readonly number[];
  /** Multiplies every wait (0.001: a 15-minute retry after 900 ms). */
  timeFactor: number;
  timeoutMs: number;
  pauseAfterFailures: number;
  now: () => number;
  faults: DeliveryFaults;
  closed: AbortSignal;
}

function post(url: string, webhook: Omit<PspWebhook, 'query'>, timeoutMs: number, closed: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { ...webhook.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(webhook.body) },
        signal: AbortSignal.any([closed, AbortSignal.timeout(timeoutMs)]),
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(webhook.body);
  });
}

/**
 * The PSP's delivery queue: each webhook tried at once, then after each wait of the PSP's schedule (scaled
 * by `timeFactor`); only a 2xx counts. After `pauseAfterFailures` failed attempts in a row the queue pauses:
 * nothing is sent until `resume()`, and what waits is kept (Asaas's "fila pausada").
 */
export function createPspDeliveries(config: DeliveriesConfig) {
  const log: PspDelivery[] = [];
  const inFlight = new Set<Promise<void>>();
  let sequence = 0;
  let failuresInARow = 0;
  let paused: { promise: Promise<void>; resolve: () => void } | undefined;

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      if (config.closed.aborted) return resolve();
      const timer = setTimeout(resolve, ms);
      config.closed.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
    });

  async function attempt(delivery: PspDelivery): Promise<boolean> {
    const fault = config.faults.take(delivery.url);
    let status = 0;
    let error: string | undefined;
    const at = new Date(config.now()).toISOString();
    try {
      if (fault?.action === 'fail') status = fault.status ?? 500;
      else if (fault?.action === 'drop') error = 'connection dropped (fault)';
      else if (fault?.action === 'timeout') {
        await wait(config.timeoutMs);
        error = `no answer within ${String(config.timeoutMs)} ms (fault)`;
      } else {
        if (fault?.action === 'delay') await wait(fault.delayMs ?? 0);
        status = await post(delivery.url, delivery, config.timeoutMs, config.closed);
      }
    } catch (cause) {
      error = cause instanceof Error ? cause.message : String(cause);
    }
    delivery.attempts.push({ at, status, ...(error !== undefined && { error }) });
    return status >= 200 && status < 300;
  }

  async function deliver(delivery: PspDelivery): Promise<void> {
    const attempts = config.scheduleMs.length + 1;
    let used = 0;
    while (!config.closed.aborted) {
      if (paused) {
        // A paused queue keeps its webhooks; once re-enabled each is sent again with its attempts anew.
        delivery.state = 'paused';
        await Promise.race([paused.promise, wait(2 ** 31 - 1)]);
        if (config.closed.aborted) break;
        delivery.state = 'pending';
        used = 0;
      }
      if (used >= attempts) break;
      used++;
      if (await attempt(delivery)) {
        failuresInARow = 0;
        delivery.state = 'delivered';
        return;
      }
      failuresInARow++;
      if (failuresInARow >= config.pauseAfterFailures && !paused) {
        let resolve = () => {};
        const promise = new Promise<void>((r) => (resolve = r));
        paused = { promise, resolve };
      }
      const waitMs = config.scheduleMs[used - 1];
      if (waitMs !== undefined && !paused) await wait(waitMs * config.timeFactor);
    }
    if (delivery.state === 'pending') delivery.state = 'failed';
  }

  return {
    /** Queues one webhook to `url` (the registered URL, the PSP's query added). */
    send(url: string, chargeId: string, kind: PspDelivery['kind'], webhook: PspWebhook): PspDelivery {
      const delivery: PspDelivery = {
        id: `dlv_${String(++sequence).padStart(5, '0')}`,
        chargeId,
        kind,
        url: url + webhook.query,
        headers: webhook.headers,
        body: webhook.body,
        state: 'pending',
        attempts: [],
      };
      log.push(delivery);
      if (!config.closed.aborted) {
        const work = deliver(delivery);
        inFlight.add(work);
        void work.finally(() => inFlight.delete(work));
      }
      return delivery;
    },
    deliveries: (): readonly PspDelivery[] => log,
    /** True while the queue is paused. */
    paused: () => paused !== undefined,
    /** Re-enables a paused queue: what waits is sent again. */
    resume(): void {
      failuresInARow = 0;
      const was = paused;
      paused = undefined;
      was?.resolve();
    },
    /** Resolves once no delivery is being attempted (a paused one waits for `resume()`: it counts as settled). */
    async idle(): Promise<void> {
      while (log.some((d) => d.state === 'pending') && !config.closed.aborted)
        await Promise.race([Promise.allSettled([...inFlight]), wait(5)]);
    },
  };
}

export type PspDeliveries = ReturnType<typeof createPspDeliveries>;
