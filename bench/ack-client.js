// Sends distinct signed deliveries at a fixed rate over keep-alive HTTP; reports latency of the 200s.
import { createHmac } from 'node:crypto';
import { Agent, request } from 'node:http';
import { buildPayload } from 'pixhook/testing';
import { secret } from './lib/payloads.js';
import { percentile, round } from './lib/stats.js';

const { port, rate, durationSec } = JSON.parse(process.argv[2]);
const total = Math.round(rate * durationSec);
const agent = new Agent({ keepAlive: true, maxSockets: 32 });

// Every delivery is a different transaction, so each one is claimed and queued (no duplicates).
const deliveries = [];
for (let i = 0; i < total; i++) {
  const bytes = Buffer.from(JSON.stringify(buildPayload('transaction_paid', { variant: 'b', seed: 1000 + i, id: `txn_ack_${i}` })));
  const signature = `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`;
  deliveries.push({ bytes, signature });
}

function send({ bytes, signature }) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(
      {
        agent,
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/webhooks/pix',
        headers: { 'content-type': 'application/json', 'content-length': bytes.length, 'x-signature': signature },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}

// Warm the connections and the server's JIT with a few deliveries first (not counted).
await Promise.all(Array.from({ length: 20 }, (_, i) => send(deliveries[i])));
const pending = [];
const startedAt = performance.now();
for (let i = 20; i < total; i++) {
  const due = startedAt + ((i - 20) * 1000) / rate;
  const wait = due - performance.now();
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  pending.push(send(deliveries[i]));
}
const results = await Promise.all(pending);
const ok = results.filter((r) => r.status === 200).map((r) => r.ms);
agent.destroy();
console.log(
  JSON.stringify({
    rate,
    sent: results.length,
    ok: ok.length,
    p50_ms: round(percentile(ok, 50), 3),
    p99_ms: round(percentile(ok, 99), 3),
    max_ms: round(Math.max(...ok), 3),
  }),
);
