// Prototype, bench-only: a node:http webhook handler that keeps every guarantee of pixhook's node adapter
// (POST only, body size limit, exact-bytes HMAC, strict essentials, dedupe claim + complete, inline
// deadline, the same answers) but is built for the hot path. It reuses pixhook's own dist internals, so
// the difference to `createNodeHandler` is the plumbing only. Options switch single changes back to
// today's way, to measure each one. Not a product: the lead applies what it proves to src/intake/.
import getRawBody from 'raw-body';
import { memoryDedupeStore } from '../../dist/src/dedupe/memory-dedupe-store.js';
import { normalizeEvent } from '../../dist/src/events/normalize-event.js';
import { defaultDedupeKey } from '../../dist/src/index.js';
import { parseJson } from '../../dist/src/intake/parse-json.js';
import { verifySignatureNow } from '../../dist/src/signature/verify-signature.js';
import { mapDedupeStore } from './map-dedupe-store.js';
import { coarseDeadlines } from './coarse-deadlines.js';

const okBody = '{"ok":true}';
const jsonType = 'application/json; charset=utf-8';
// Answers whose bytes never change, built once: [status, headers array, body].
const prebuilt = {
  ok: [200, ['content-type', jsonType, 'cache-control', 'no-store', 'content-length', String(okBody.length)], okBody],
};
function built(status, body, extra = []) {
  return [status, ['content-type', jsonType, 'cache-control', 'no-store', 'content-length', String(Buffer.byteLength(body)), ...extra], body];
}
const fixed = {
  method_not_allowed: built(405, '{"error":"method_not_allowed","message":"Only POST is accepted."}', ['allow', 'POST']),
  body_too_large: built(413, '{"error":"body_too_large","message":"The body is larger than the limit."}', ['connection', 'close']),
  body_unreadable: built(400, '{"error":"body_unreadable","message":"The body could not be read."}'),
  signature_invalid: built(401, '{"error":"signature_mismatch","message":"No signature matched."}'),
  json_invalid: built(400, '{"error":"json_invalid","message":"The body is not JSON."}'),
  payload_invalid: built(422, '{"error":"payload_invalid","message":"The payload is not a known event shape."}'),
  duplicate: built(200, '{"ok":true,"reason":"duplicate"}'),
  in_flight: built(409, '{"error":"in_flight","message":"Being processed."}', ['retry-after', '1']),
  handler_failed: built(500, '{"error":"handler_failed","message":"The handler failed."}'),
  handler_timeout: built(503, '{"error":"handler_timeout","message":"The handler took too long."}', ['retry-after', '1']),
};

/**
 * options: { secret, handler, dedupeKey?, maxBodyBytes = 1 MiB, deadlineMs = 8000, claimTtlMs = 60000,
 *   dedupeTtlMs = 86400000, body: 'direct'|'raw-body', deadline: 'coarse'|'timer', answer: 'prebuilt'|'setHeader',
 *   store: 'memory'|'map', max = 100000 }
 */
export function createLeanNodeHandler(options) {
  const o = {
    maxBodyBytes: 1024 * 1024,
    deadlineMs: 8000,
    claimTtlMs: 60_000,
    dedupeTtlMs: 86_400_000,
    body: 'direct',
    deadline: 'coarse',
    answer: 'prebuilt',
    store: 'memory',
    max: 100_000,
    dedupeKey: defaultDedupeKey,
    ...options,
  };
  const store = o.store === 'map' ? mapDedupeStore({ max: o.max }) : ownerless(memoryDedupeStore({ max: o.max }));
  const deadlines = coarseDeadlines();

  function send(res, [status, headers, body]) {
    if (o.answer === 'prebuilt') {
      res.writeHead(status, headers);
    } else {
      res.statusCode = status;
      for (let i = 0; i < headers.length; i += 2) res.setHeader(headers[i], headers[i + 1]);
    }
    res.end(body);
  }

  /** Everything after the bytes: synchronous until a handler or the store returns a promise. */
  function process(req, res, bytes) {
    const signature = verifySignatureNow({ body: bytes, signature: req.headers['x-signature'], secret: o.secret });
    if (!signature.ok) return send(res, fixed.signature_invalid);
    const json = parseJson(bytes);
    if (!json.ok) return send(res, fixed.json_invalid);
    const normalized = normalizeEvent(json.value);
    if (!normalized.ok) return send(res, fixed.payload_invalid);
    const event = normalized.event;
    const key = o.dedupeKey(event);
    const claim = store.claim(key, o.claimTtlMs);
    if (claim === 'done') return send(res, fixed.duplicate);
    if (claim === 'in_flight') return send(res, fixed.in_flight);
    let result;
    try {
      result = o.handler(event, { key, attempt: 1, mode: 'inline' });
    } catch {
      store.release(key);
      return send(res, fixed.handler_failed);
    }
    // A synchronous handler is done now: no promise, no deadline to race.
    if (result === undefined || typeof result.then !== 'function') {
      store.complete(key, o.dedupeTtlMs);
      return send(res, prebuilt.ok);
    }
    let answered = false;
    const race = (answer) => {
      if (answered) return;
      answered = true;
      send(res, answer);
    };
    const cancel = o.deadline === 'coarse' ? deadlines.add(o.deadlineMs, () => race(fixed.handler_timeout)) : timerDeadline(o.deadlineMs, () => race(fixed.handler_timeout));
    result.then(
      () => {
        cancel();
        store.complete(key, o.dedupeTtlMs);
        race(prebuilt.ok);
      },
      () => {
        cancel();
        store.release(key);
        race(fixed.handler_failed);
      },
    );
  }

  return function leanNodeHandler(req, res) {
    if (req.method !== 'POST') return send(res, fixed.method_not_allowed);
    if (o.body === 'raw-body') {
      getRawBody(req, { limit: o.maxBodyBytes, length: req.headers['content-length'] }).then(
        (bytes) => process(req, res, bytes),
        (error) => send(res, error.type === 'entity.too.large' ? fixed.body_too_large : fixed.body_unreadable),
      );
      return;
    }
    readDeclared(req, o.maxBodyBytes, (error, bytes) => {
      if (error) return send(res, error === 'too_large' ? fixed.body_too_large : fixed.body_unreadable);
      process(req, res, bytes);
    });
  };
}

function timerDeadline(ms, fire) {
  const timer = setTimeout(fire, ms);
  return () => clearTimeout(timer);
}

/**
 * Reads the body with 'data' events, no stream wrapper and no promise. A declared Content-Length over
 * the limit fails before a byte is read; one chunk of exactly that length is used as is (the common
 * case for small webhooks), otherwise chunks are copied into one buffer of the declared size.
 */
export function readDeclared(req, limit, done) {
  const declared = req.headers['content-length'];
  const length = declared === undefined ? -1 : Number(declared);
  if (length > limit) return done('too_large');
  if (declared !== undefined && !(Number.isSafeInteger(length) && length >= 0)) return done('unreadable');
  let first;
  let buffer;
  let chunks;
  let received = 0;
  let failed = false;
  const onData = (chunk) => {
    if (failed) return;
    const next = received + chunk.length;
    if (next > limit || (length >= 0 && next > length)) {
      failed = true;
      req.off('data', onData);
      req.resume();
      return done(next > limit ? 'too_large' : 'unreadable');
    }
    if (received === 0 && (length < 0 || chunk.length === length)) first = chunk;
    else if (length >= 0) {
      if (buffer === undefined) {
        buffer = Buffer.allocUnsafe(length);
        if (first) first.copy(buffer, 0);
        first = undefined;
      }
      chunk.copy(buffer, received);
    } else {
      chunks ??= first ? [first] : [];
      first = undefined;
      chunks.push(chunk);
    }
    received = next;
  };
  req.on('data', onData);
  req.on('end', () => {
    if (failed) return;
    if (length >= 0 && received !== length) return done('unreadable');
    done(undefined, buffer ?? (chunks ? Buffer.concat(chunks, received) : (first ?? Buffer.alloc(0))));
  });
  req.on('error', () => {
    if (!failed) {
      failed = true;
      done('unreadable');
    }
  });
}

/** pixhook's owner-checked store behind the prototype's two-argument calls (one owner: the prototype). */
export function ownerless(store) {
  return {
    claim: (key, ttl) => store.claim(key, 'lean', ttl),
    complete: (key, ttl) => store.complete(key, 'lean', ttl),
    release: (key) => store.release(key, 'lean'),
  };
}
