// Section 5: redisDedupeStore.claim against a raw `SET key value NX PX ttl` on the same Redis and the
// same client, one call at a time (round-trip latency), in alternating rounds.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { redisDedupeStore } from 'pixhook/redis';
import { startRedisServer } from './lib/redis-server.js';
import { interleave, pairedRatio } from './lib/interleave.js';
import { median, quick, round } from './lib/stats.js';

const server = await startRedisServer();
const client = new Redis({ host: '127.0.0.1', port: server.port, lazyConnect: true });
try {
  await client.connect();
  const store = redisDedupeStore({ client });
  let n = 0;
  const subjects = {
    'SET NX PX': {
      async: true,
      async fn() {
        const ok = await client.set(`bench:raw:transaction_paid:txn_${n++}:paid`, `c:${randomUUID()}`, 'PX', 60_000, 'NX');
        if (ok !== 'OK') throw new Error(`SET NX answered ${ok}`);
      },
    },
    claim: {
      async: true,
      async fn() {
        const result = await store.claim(`transaction_paid:txn_${n++}:paid`, randomUUID(), 60_000);
        if (result !== 'claimed') throw new Error(`claim answered ${result}`);
      },
    },
  };
  const options = quick ? { rounds: 3, sliceMs: 20, warmupMs: 100 } : { rounds: 30, sliceMs: 100, warmupMs: 1000 };
  const samples = await interleave(subjects, options);
  console.log(
    JSON.stringify({
      set_us: round(median(samples['SET NX PX']) / 1000, 1),
      claim_us: round(median(samples.claim) / 1000, 1),
      ratio: round(pairedRatio(samples, 'claim', 'SET NX PX'), 3),
    }),
  );
} finally {
  client.disconnect();
  await server.stop();
}
