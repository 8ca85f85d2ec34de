// One subject of section 7 in its own process: an HTTP route that accepts signed deliveries onto a
// BullMQ queue on the bench's Redis, and a worker (concurrency 10, no-op) in the same process, like a
// web process that runs its own worker. `node durable-server.js <subject> <redis-url>`; prints
// {"port":n,"control":n}. The control port answers GET /count (jobs completed so far),
// GET /wait?count=N once N jobs have completed (504 after 60 s) and GET /cpu (process.cpuUsage()).
//   pixhook        createNodeHandler + durable mode: createDurableQueue, redisDedupeStore on the same
//                  Redis, startWorker({ processing }) on the processing the receiver shares, onAny(no-op): the README's setup.
//   pixhook-memory the same with the default in-memory dedupe store (to show the Redis claim's share).
//   bullmq         the hand-written verifying route (HMAC + timingSafeEqual + JSON.parse), then
//                  queue.add(event, payload) on a plain BullMQ Queue; a plain Worker with an async no-op.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import { Queue, Worker } from 'bullmq';
import { createProcessing, createReceiver } from 'pixhook';
import { createNodeHandler } from 'pixhook/node';
import { createDurableQueue, redisDedupeStore, startWorker } from 'pixhook/redis';
import { secret } from './lib/payloads.js';

const [subject, url] = process.argv.slice(2);
const concurrency = 10;
let completed = 0;
const waiters = new Set();
const onCompleted = () => {
  completed++;
  for (const w of waiters) if (completed >= w.count) w.done();
};

async function pixhook(store) {
  const queue = await createDurableQueue({ connection: url, queueName: `bench-${subject}` });
  const client = store === 'redis' ? new Redis(url) : undefined;
  const processing = createProcessing({ mode: 'durable', queue, ...(client && { store: redisDedupeStore({ client }) }) }).onAny(() => {});
  const receiver = createReceiver({ secret, processing });
  const worker = await startWorker({ processing, connection: url, queueName: `bench-${subject}`, concurrency });
  worker.worker.on('completed', onCompleted);
  return createNodeHandler(receiver);
}

async function bullmq() {
  const { hostname, port } = new URL(url);
  const connection = { host: hostname, port: Number(port) };
  const name = 'bench-bullmq';
  // The job options pixhook's queue gives its jobs: kept 24 h once completed, kept when failed, retried with backoff.
  const queue = new Queue(name, {
    connection,
    defaultJobOptions: {
      attempts: 5,
      backoff: { type: 'exponential', delay: 1000 },
      removeOnComplete: { age: 86_400 },
      removeOnFail: false,
    },
  });
  const worker = new Worker(name, async () => {}, { connection, concurrency });
  worker.on('completed', onCompleted);
  await Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]);
  const okHeaders = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
  return (req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const given = Buffer.from(String(req.headers['x-signature']).slice(7), 'hex');
      const expected = createHmac('sha256', secret).update(bytes).digest();
      if (given.length !== expected.length || !timingSafeEqual(expected, given))
        return void res.writeHead(401, okHeaders).end('{"ok":false}');
      const payload = JSON.parse(bytes.toString('utf8'));
      queue.add(payload.event, payload).then(
        () => res.writeHead(200, okHeaders).end('{"ok":true}'),
        () => res.writeHead(503, okHeaders).end('{"ok":false}'),
      );
    });
  };
}

const handler = subject === 'bullmq' ? await bullmq() : await pixhook(subject === 'pixhook' ? 'redis' : 'memory');
const control = createServer((req, res) => {
  const { pathname, searchParams } = new URL(req.url, 'http://control');
  if (pathname === '/count') return void res.end(JSON.stringify({ completed }));
  // This process's CPU time so far (µs): the client takes it before and after a round.
  if (pathname === '/cpu') return void res.end(JSON.stringify(process.cpuUsage()));
  const count = Number(searchParams.get('count'));
  const waiter = {
    count,
    done() {
      waiters.delete(waiter);
      clearTimeout(waiter.timer);
      res.end(JSON.stringify({ completed }));
    },
    timer: setTimeout(() => {
      waiters.delete(waiter);
      res.writeHead(504).end(JSON.stringify({ completed }));
    }, 60_000),
  };
  if (completed >= count) return waiter.done();
  waiters.add(waiter);
});
const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
console.log(JSON.stringify({ port: await listen(createServer(handler)), control: await listen(control) }));
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
