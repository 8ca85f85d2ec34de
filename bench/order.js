// The resource order lease's cost per delivery on Redis (issue 28 §3), side by side in alternating rounds:
// `processing.accept()` of a new transaction_paid (claim, order lease, no-op handler, done mark, lease given back)
// with the store's Redis lease, against the same processing whose store keeps no Redis lease (the same Redis
// store behind a plain wrapper: its leases stay in the process, as before issue 28).
// Run: npm run build && node bench/order.js [--quick]. Prints one JSON object.
import { Redis } from 'ioredis';
import { createProcessing } from 'pixhook';
import { redisDedupeStore } from 'pixhook/redis';
import { interleave, pairedSpread } from './lib/interleave.js';
import { startRedisServer } from './lib/redis-server.js';
import { median, quick, round } from './lib/stats.js';

const options = quick
  ? { rounds: 3, sliceMs: 20, warmupMs: 100, calibrate: 20, minIterations: 5 }
  : { rounds: 20, sliceMs: 150, warmupMs: 1000, calibrate: 2000, minIterations: 200 };
const paid = (id) => ({
  kind: 'transaction',
  name: 'transaction_paid',
  variant: 'a',
  source: 'webhook',
  warnings: [],
  payload: {},
  transaction: { id, status: 'paid', amountInCents: 1000 },
});

const server = await startRedisServer();
const client = new Redis({ host: '127.0.0.1', port: server.port, lazyConnect: true });
try {
  await client.connect();
  const store = redisDedupeStore({ client, prefix: 'bench:{order}:', quarantine: false });
  // A plain object: the processing finds no Redis lease registered for it.
  const unleased = {
    claim: (...args) => store.claim(...args),
    complete: (...args) => store.complete(...args),
    release: (...args) => store.release(...args),
    extend: (...args) => store.extend(...args),
  };
  const withLease = createProcessing({ store }).on('transaction_paid', () => {});
  const without = createProcessing({ store: unleased }).on('transaction_paid', () => {});
  let n = 0;
  const accept = (processing) => async () => {
    const result = await processing.accept(paid(`txn_${n++}`));
    if (result.reason !== undefined) throw new Error(`accept answered ${result.reason}`);
  };
  const samples = await interleave(
    { 'with the Redis lease': { async: true, fn: accept(withLease) }, 'without it': { async: true, fn: accept(without) } },
    options,
  );
  const leases = await client.keys('bench:{order}:order:*');
  if (leases.some((key) => !key.endsWith(':n'))) throw new Error('a lease was left held');
  console.log(
    JSON.stringify({
      with_lease_us: round(median(samples['with the Redis lease']) / 1000, 1),
      without_us: round(median(samples['without it']) / 1000, 1),
      ratio: pairedSpread(samples, 'with the Redis lease', 'without it'),
    }),
  );
} finally {
  client.disconnect();
  await server.stop();
}
