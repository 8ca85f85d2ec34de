import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeHandler } from '../../adapters/node/index.js';
import { internalsOf } from '../../src/adapter-kit/index.js';
import type { Receiver } from '../../src/index.js';
import type { ChunkCheck } from '../../src/intake/receiver-types.js';

/**
 * POSTs `parts` to `receiver` behind node:http with chunked framing, each after `ready()` resolves for the
 * previous one (a spy on the receiver's body check resolves it once the chunk was fed). The server's closer
 * goes to `closers`.
 */
export async function sendInParts(
  receiver: Receiver,
  parts: Uint8Array[],
  headers: Record<string, string>,
  ready: () => Promise<void>,
  closers: (() => Promise<void>)[],
): Promise<{ status: number; body: string }> {
  const server = createServer(createNodeHandler(receiver));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/webhooks', method: 'POST', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    void (async () => {
      for (const part of parts) {
        const fed = ready();
        req.write(part);
        await fed;
      }
      req.end();
    })().catch(reject);
  });
}

/** `bytes` cut into `parts` pieces of (about) one size. */
export function split(bytes: Uint8Array, parts: number): Uint8Array[] {
  const size = Math.ceil(bytes.byteLength / parts);
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.byteLength; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

/**
 * Spies on the receiver's body check: records the size of every chunk the adapter feeds it and wakes the sender
 * (`nextChunk`) after each; counts the checks started and, where the check has an `end()`, the verdicts taken
 * from it (so a test can tell the answer came from this check, not a second hash of the whole body).
 */
export function spyChecks(receiver: Receiver) {
  const internals = internalsOf(receiver) as { bodyCheck?: (headers: IncomingHttpHeaders) => ChunkCheck | undefined };
  const start = internals.bodyCheck!;
  const fed: number[] = [];
  let started = 0;
  let ended = 0;
  let wake = () => {};
  internals.bodyCheck = (headers) => {
    const check = start(headers);
    if (check === undefined) return undefined;
    started++;
    const update = check.update.bind(check);
    // Patched on the instance, so the receiver still recognises its own check.
    check.update = (chunk) => {
      fed.push(chunk.byteLength);
      update(chunk);
      wake();
    };
    const withEnd = check as ChunkCheck & { end?: () => unknown };
    if (typeof withEnd.end === 'function') {
      const end = withEnd.end.bind(check);
      withEnd.end = () => {
        ended++;
        return end();
      };
    }
    return check;
  };
  const nextChunk = () => new Promise<void>((resolve) => (wake = resolve));
  return { fed, nextChunk, started: () => started, ended: () => ended };
}
