import { createHmac } from 'node:crypto';

export const testSecret = 'whsec_redis_suite';

export interface Delivery {
  /** Unique per event (the dedupe key the receiver derives from it). */
  key: string;
  body: string;
  signature: string;
}

/** A Variant A `transaction_paid` for transaction `id`, signed with `testSecret`. */
export function paidDelivery(id: string, amountInCents = 1000): Delivery {
  const body = JSON.stringify({
    event: 'transaction_paid',
    timestamp: '2026-11-22T12:00:00Z',
    data: { id, status: 'paid', amountInCents },
  });
  return { key: `transaction_paid:${id}:paid:${amountInCents}`, body, signature: sign(body) };
}

export function sign(body: string, secret = testSecret): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function headersOf(delivery: Delivery): Record<string, string> {
  return { 'content-type': 'application/json', 'x-signature': delivery.signature };
}

/** POSTs once; resolves to the status, or 0 when the connection failed. */
export async function post(url: string, delivery: Delivery): Promise<number> {
  try {
    const response = await fetch(url, { method: 'POST', headers: headersOf(delivery), body: delivery.body });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/** Like the gateway: POSTs until a 2xx, with a short pause after a 503 or a failed connection. */
export async function sendUntilAccepted(
  url: string | (() => string),
  delivery: Delivery,
  options: { pauseMs?: number; maxTries?: number; onStatus?: (status: number) => void } = {},
): Promise<{ status: number; tries: number; statuses: number[] }> {
  const statuses: number[] = [];
  for (let tries = 1; ; tries++) {
    const status = await post(typeof url === 'string' ? url : url(), delivery);
    statuses.push(status);
    options.onStatus?.(status);
    if (status >= 200 && status < 300) return { status, tries, statuses };
    if (tries >= (options.maxTries ?? 200)) return { status, tries, statuses };
    await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 50));
  }
}

/** Runs `work` over `items` with at most `limit` at once. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  async function lane(): Promise<void> {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!, index);
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** Polls `check` until it returns true (no timing is asserted: the test's own timeout bounds it). */
export async function until(check: () => boolean | Promise<boolean>, pauseMs = 25): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, pauseMs));
}
