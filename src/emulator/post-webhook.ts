import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ActiveDeliveryFault } from './delivery-faults.js';

/** One webhook POST the emulator sends (the API Pix and PSP profiles' queues). */
interface WebhookPost {
  url: string;
  body: string;
  /** The sender's own headers (a signature, a token); `content-type` and `content-length` are set here. */
  headers?: Record<string, string>;
  /** Over https: the sender's client certificate and the CA it trusts (API Pix's mTLS). */
  tls?: { cert: string; key: string; ca: string };
  timeoutMs: number;
  /** Aborted when the emulator closes. */
  closed: AbortSignal;
}

/**
 * POSTs `body` as JSON and resolves with the answer's status once its body has been read (and dropped);
 * rejects on a network error, past `timeoutMs`, or when the emulator closes.
 */
function postWebhook(post: WebhookPost): Promise<number> {
  return new Promise((resolve, reject) => {
    const https = post.url.startsWith('https:');
    const req = (https ? httpsRequest : httpRequest)(
      post.url,
      {
        method: 'POST',
        headers: { ...post.headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(post.body) },
        ...(https && post.tls !== undefined && { cert: post.tls.cert, key: post.tls.key, ca: post.tls.ca }),
        signal: AbortSignal.any([post.closed, AbortSignal.timeout(post.timeoutMs)]),
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(post.body);
  });
}

/** Resolves after `ms`, or at once when the emulator closes (then every wait of its queues ends). */
export function waitUnlessClosed(ms: number, closed: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (closed.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    closed.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/**
 * One attempt under the delivery fault in force, the same for the API Pix and PSP queues: `fail` answers its
 * status (500) unsent, `drop` is no answer, `timeout` waits the whole timeout for none, `delay` waits then
 * sends; without a fault it is sent. `status` 0 is no answer, with why in `error`.
 */
export async function attemptWebhook(
  post: WebhookPost,
  fault: ActiveDeliveryFault | undefined,
): Promise<{ status: number; error?: string }> {
  try {
    if (fault?.action === 'fail') return { status: fault.status ?? 500 };
    if (fault?.action === 'drop') return { status: 0, error: 'connection dropped (fault)' };
    if (fault?.action === 'timeout') {
      await waitUnlessClosed(post.timeoutMs, post.closed);
      return { status: 0, error: `no answer within ${String(post.timeoutMs)} ms (fault)` };
    }
    if (fault?.action === 'delay') await waitUnlessClosed(fault.delayMs ?? 0, post.closed);
    return { status: await postWebhook(post) };
  } catch (cause) {
    return { status: 0, error: cause instanceof Error ? cause.message : String(cause) };
  }
}
