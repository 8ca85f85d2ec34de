// Prototype ablation server: node:http routes that each switch one change of the lean prototype back
// to today's way, next to today's adapter and the hand-written route. Prints {"route":port,…}.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { createReceiver, defaultDedupeKey } from '../../dist/src/index.js';
import { createNodeHandler } from '../../dist/adapters/node/index.js';
import { secret } from '../lib/payloads.js';
import { createLeanNodeHandler, readDeclared } from './lean-node.js';

let n = 0;
const dedupeKey = (event) => `${defaultDedupeKey(event)}#${n++}`;
const lean = (options) => createLeanNodeHandler({ secret, handler: () => {}, dedupeKey, ...options });
const asyncHandler = async () => {};
const receiver = createReceiver({ secret, dedupeKey }).onAny(() => {});
// Today's core, called straight from the hand-written route's reader: the adapter's own cost is the difference.
const direct = (headersOf) => (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const result = receiver.handle({ method: req.method, headers: req.headers, body: Buffer.concat(chunks) });
    res.writeHead(result.status, headersOf(result)).end(result.body);
  });
};
const lists = new WeakMap();
const prebuilt = (result) => {
  let list = lists.get(result.headers);
  if (list === undefined) lists.set(result.headers, (list = [...Object.entries(result.headers).flat(), 'content-length', String(Buffer.byteLength(result.body))]));
  return list;
};
const routes = {
  handwritten: (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const given = Buffer.from(String(req.headers['x-signature']).slice(7), 'hex');
      const expected = createHmac('sha256', secret).update(bytes).digest();
      const ok = given.length === expected.length && timingSafeEqual(expected, given);
      if (ok) JSON.parse(bytes.toString('utf8'));
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end('{"ok":true}');
    });
  },
  pixhook: createNodeHandler(receiver),
  direct_core: direct((result) => result.headers),
  // The lean prototype's reader in front of today's core and answer: which half holds the gap.
  lean_read_core: (req, res) =>
    readDeclared(req, receiver.maxBodyBytes, (error, bytes) => {
      const result = receiver.handle({ method: req.method, headers: req.headers, body: error ? new Uint8Array(0) : bytes });
      res.writeHead(result.status, prebuilt(result)).end(result.body);
    }),
  direct_core_prebuilt: direct(prebuilt),
  lean: lean({}),
  lean_rawbody: lean({ body: 'raw-body' }),
  lean_setheader: lean({ answer: 'setHeader' }),
  lean_async_coarse: lean({ handler: asyncHandler }),
  lean_async_timer: lean({ handler: asyncHandler, deadline: 'timer' }),
  lean_map_store: lean({ store: 'map' }),
};
const ports = {};
const only = process.env.ROUTES?.split(',');
for (const [name, handler] of Object.entries(routes)) {
  if (only && !only.includes(name)) continue;
  const server = createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  ports[name] = server.address().port;
}
console.log(JSON.stringify(ports));
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
