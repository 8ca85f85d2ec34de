import { readHeader } from '../src/index.js';
import type { ReasonCode } from '../src/index.js';
import type { Receiver, ReceiveRequest, ReceiveResult } from '../src/index.js';
import { deliver } from '../src/testing/deliver.js';

// Answers given before the signature was checked, or on a failed check: those bytes are never forwarded.
const unverified: ReadonlySet<ReasonCode> = new Set<ReasonCode>([
  'signature_missing',
  'signature_malformed',
  'signature_mismatch',
  'method_not_allowed',
  'body_too_large',
  'body_already_parsed',
  'body_unreadable',
  'internal_error',
]);

export interface Forwarder {
  /** The same receiver, whose verified deliveries are also sent on to the forward URL. */
  wrap(receiver: Receiver): Receiver;
  /** Resolves when every forward in progress has settled. */
  drain(): Promise<void>;
}

/**
 * `pixhook listen --forward-to <url>`: after the listener answered a delivery whose signature held,
 * POST its original bytes and `X-Signature` to the developer's app, once, and print the app's answer.
 * The gateway's own retries reach the app through the listener, so the forward itself never retries.
 */
export function createForwarder(url: string, write: (line: string) => void): Forwarder {
  const pending = new Set<Promise<void>>();

  async function forward(bytes: Uint8Array, signature: string, result: ReceiveResult): Promise<void> {
    const what = describe(result);
    const outcome = await deliver({ url, body: bytes, signature, attempts: 1 });
    const attempt = outcome.attempts[0];
    const answer = attempt?.status === undefined ? `error ${attempt?.error}` : String(attempt.status);
    write(`pixhook: forwarded ${what} to ${url} → ${answer} (${attempt?.durationMs.toFixed(1)} ms)\n`);
  }

  return {
    wrap(receiver) {
      const receive = async (request: ReceiveRequest): Promise<ReceiveResult> => {
        let bytes: Uint8Array | undefined;
        const source = request.body;
        // Adapters hand over a reader; keep what it read so the exact bytes can be forwarded.
        const body =
          typeof source === 'function'
            ? async (limit: number) => (bytes = await source(limit))
            : source;
        if (source instanceof Uint8Array) bytes = source;
        else if (typeof source === 'string') bytes = new TextEncoder().encode(source);
        const result = await receiver.receive({ ...request, body });
        const signature = readHeader(request.headers, 'x-signature');
        if (bytes && signature && (result.reason === undefined || !unverified.has(result.reason))) {
          const work = forward(bytes, signature, result).catch((error: unknown) => write(`pixhook: forward failed: ${String(error)}\n`));
          pending.add(work);
          void work.then(() => pending.delete(work));
        }
        return result;
      };
      return { ...receiver, receive };
    },
    async drain() {
      await Promise.all([...pending]);
    },
  };
}

function describe(result: ReceiveResult): string {
  const event = result.event;
  if (!event) return `a verified delivery (${result.reason ?? result.status})`;
  if (event.kind === 'unknown') return `${event.name} (unknown event)`;
  const resource = event.kind === 'transaction' ? event.transaction : event.transfer;
  return `${event.name} ${resource.id}${result.reason === undefined ? '' : ` (${result.reason})`}`;
}
