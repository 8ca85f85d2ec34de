import { internalsOf, withReceive } from '../../src/adapter-kit/index.js';
import type { ReasonCode, Receiver, ReceiveRequest, ReceiveResult } from '../../src/index.js';
import { readHeader } from '../../src/shared/read-header.js';
import { reasonGroup } from '../../src/shared/reasons.js';
import { deliver } from '../../src/testing/index.js';
import { jsonText } from './json-text.js';

/** Only bytes whose signature held are forwarded: answers from the payload or processing steps (derived from the reasons table). */
function verified(reason: ReasonCode | undefined): boolean {
  if (reason === undefined) return true;
  const group = reasonGroup(reason);
  return (group === 'payload' || group === 'processing') && reason !== 'internal_error';
}

interface Forwarder {
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

  async function forward(bytes: Uint8Array, header: string, signature: string, result: ReceiveResult): Promise<void> {
    const what = describe(result);
    // The original signature header, under its own name: the app verifies exactly what the gateway sent.
    const outcome = await deliver({ url, body: bytes, signature: null, headers: { [header]: signature }, retry: { attempts: 1 } });
    const attempt = outcome.attempts[0];
    const answer = attempt?.status === undefined ? `error ${jsonText(attempt?.error)}` : String(attempt.status);
    write(`pixhook: forwarded ${what} to ${url} → ${answer} (${attempt?.durationMs.toFixed(1)} ms)\n`);
  }

  return {
    wrap(receiver) {
      const { signatureHeader } = internalsOf(receiver);
      const receive = async (request: ReceiveRequest): Promise<ReceiveResult> => {
        let bytes: Uint8Array | undefined;
        const source = request.body;
        // Adapters hand over a reader; keep what it read so the exact bytes can be forwarded.
        const body = typeof source === 'function' ? async (limit: number) => (bytes = await source(limit)) : source;
        if (source instanceof Uint8Array) bytes = source;
        else if (typeof source === 'string') bytes = new TextEncoder().encode(source);
        const result = await receiver.receive({ ...request, body });
        const signature = readHeader(request.headers, signatureHeader);
        if (bytes && signature && verified(result.reason)) {
          const work = forward(bytes, signatureHeader, signature, result).catch((error: unknown) =>
            write(`pixhook: forward failed: ${jsonText(String(error))}\n`),
          );
          pending.add(work);
          void work.then(() => pending.delete(work));
        }
        return result;
      };
      // The adapters' fast path goes through the forwarder's receive too.
      return withReceive(receiver, receive);
    },
    async drain() {
      await Promise.all([...pending]);
    },
  };
}

function describe(result: ReceiveResult): string {
  const event = result.event;
  if (!event) return `a verified delivery (${result.reason ?? result.status})`;
  // Names and ids come from the delivery: JSON-encoded so they cannot forge a log line.
  if (event.kind === 'unknown') return `${jsonText(event.name)} (unknown event)`;
  const resource = event.kind === 'transaction' ? event.transaction : event.transfer;
  return `${event.name} ${jsonText(resource.id)}${result.reason === undefined ? '' : ` (${result.reason})`}`;
}
