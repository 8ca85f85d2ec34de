import type { IncomingMessage, ServerResponse } from 'node:http';
import { normalizeEvent, verifySignature, type DeliveryJournal, type JournalEntry } from '../../src/index.js';
import { attemptEntry, deliveryEntry } from '../../src/journal/entries.js';
import { journalId } from '../../src/journal/journal-id.js';
import { describeError } from '../../src/shared/describe-error.js';
import { redactedUrl } from '../../src/shared/redacted-url.js';
import { reasonCodes, type ReasonCode } from '../../src/shared/reasons.js';

// What a gateway sends at most; a larger body is refused here, as a receiver would.
const maxBodyBytes = 1024 * 1024;
// The gateway gives up on an attempt after this long; so does the forwarder.
const appTimeoutMs = 10_000;
// Headers that belong to one connection, not to the delivery.
const hopByHop = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'expect']);
const decoder = new TextDecoder();

interface DevForwarder {
  /** The node:http handler at the dev receiver's path. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Resolves once every delivery in progress is answered and journaled. */
  drain(): Promise<void>;
}

/**
 * `pixhook dev --forward-to <url>`: each delivery that reaches the dev receiver is sent on, byte for
 * byte with its headers, to the developer's own app, and the app's answer is the answer the
 * emulator gets (so its retries follow the app). The journal records the delivery with the app's
 * status, reason and latency, so the console shows what the app answered. The signature is checked
 * here with the dev secret only to decide whether the body may be kept (never for an unsigned one).
 */
export function devForwarder(input: {
  target: string;
  secret: string;
  journal: DeliveryJournal;
  report(error: unknown): void;
}): DevForwarder {
  const { target, secret, journal } = input;
  const shown = redactedUrl(target);
  const running = new Set<Promise<void>>();

  async function forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const arrivedAt = Date.now();
    const bytes = await readBody(req);
    if (bytes === undefined) {
      res.writeHead(413, { 'content-type': 'application/json', connection: 'close' }).end('{"error":"body_too_large"}');
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined || hopByHop.has(name)) continue;
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
    }
    const started = performance.now();
    let status: number;
    let body = '';
    let contentType: string | null = null;
    let failure: string | undefined;
    try {
      const response = await fetch(target, {
        method: req.method ?? 'POST',
        headers,
        ...(req.method !== 'GET' && req.method !== 'HEAD' && { body: bytes }),
        redirect: 'manual',
        signal: AbortSignal.timeout(appTimeoutMs),
      });
      status = response.status;
      contentType = response.headers.get('content-type');
      body = await response.text();
    } catch (error) {
      status = 502;
      failure = `your app at ${shown} did not answer: ${describeError(error)}`;
    }
    const latencyMs = performance.now() - started;
    const answerHeaders: Record<string, string> = { 'content-type': contentType ?? 'application/json' };
    res.writeHead(status, answerHeaders).end(failure === undefined ? body : JSON.stringify({ error: 'app_unreachable' }));
    await journal.add(await entryOf({ req, bytes, arrivedAt, status, body, latencyMs, failure }));
  }

  async function entryOf(d: {
    req: IncomingMessage;
    bytes: Uint8Array;
    arrivedAt: number;
    status: number;
    body: string;
    latencyMs: number;
    failure: string | undefined;
  }): Promise<JournalEntry> {
    const check = await verifySignature({ body: d.bytes, signature: headerOf(d.req, 'x-signature'), secret });
    const text = check.ok ? decoder.decode(d.bytes) : undefined;
    const normalized = text === undefined ? undefined : parsed(text);
    const delivery = {
      request: { headers: d.req.headers, remoteAddress: d.req.socket.remoteAddress },
      journal: { id: journalId(d.arrivedAt) },
      arrivedAt: d.arrivedAt,
      bytes: d.bytes,
      verified: check.ok,
      event: normalized?.ok === true ? normalized.event : undefined,
      text,
    };
    const entry = deliveryEntry(delivery, { status: d.status, reason: reasonOf(d.body) }, 'x-signature');
    // The app's answer, as one run: its latency, and in its words when it did not succeed.
    const succeeded = d.failure === undefined && d.status < 300;
    const answered = d.failure ?? `your app at ${shown} answered ${d.status}${d.body === '' ? '' : `: ${d.body.slice(0, 300)}`}`;
    const outcome = succeeded
      ? ({ ok: true } as const)
      : { ok: false as const, error: answered, ...(d.failure?.includes('TimeoutError') === true && { timedOut: true as const }) };
    entry.attempts.push(attemptEntry(outcome, 1, d.arrivedAt, d.latencyMs));
    return entry;
  }

  return {
    handle(req, res) {
      const done = forward(req, res)
        .catch((error: unknown) => {
          input.report(error);
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"internal_error"}');
        })
        .finally(() => running.delete(done));
      running.add(done);
    },
    async drain() {
      await Promise.allSettled([...running]);
    },
  };
}

/** The body, or undefined past the limit. */
async function readBody(req: IncomingMessage): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).byteLength;
    if (size > maxBodyBytes) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new Uint8Array(Buffer.concat(chunks)) as Uint8Array<ArrayBuffer>;
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** A pixhook app answers `{"error":"<reason>"}` or `{"ok":true,"reason":"<reason>"}`; any other body has no reason. */
function reasonOf(body: string): ReasonCode | undefined {
  try {
    const json = JSON.parse(body) as { error?: unknown; reason?: unknown };
    const reason = typeof json.error === 'string' ? json.error : json.reason;
    return (reasonCodes as readonly unknown[]).includes(reason) ? (reason as ReasonCode) : undefined;
  } catch {
    return undefined;
  }
}

function parsed(text: string): ReturnType<typeof normalizeEvent> | undefined {
  try {
    return normalizeEvent(JSON.parse(text));
  } catch {
    return undefined;
  }
}
