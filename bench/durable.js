// Section 7: durable mode end to end. Events per second accepted over HTTP and completed by a worker,
// pixhook (node adapter, durable mode, createDurableQueue + startWorker) against raw BullMQ
// (a hand-written verifying route + queue.add, and a Worker doing the same no-op), on one Redis,
// same payloads, alternating rounds (order rotated). Per round and subject: `count` fresh events from
// `senders` concurrent senders, timed from the first send to the last completion; also the CPU time per
// event of the server process and of redis-server over the round.
import { sendRound } from './durable-client.js';
import { startServer } from './lib/child.js';
import { startRedisServer } from './lib/redis-server.js';
import { median, quick, round, spread } from './lib/stats.js';

const plan = quick
  ? { rounds: 1, count: 100, senders: 10, warmup: 20 }
  : { rounds: Math.max(7, Number(process.env.BENCH_DURABLE_ROUNDS ?? 7)), count: 2000, senders: 10, warmup: 500 };
const subjects = ['pixhook', 'pixhook-memory', 'bullmq'];
const redis = await startRedisServer();
const url = `redis://127.0.0.1:${redis.port}`;
const servers = {};
try {
  for (const subject of subjects) servers[subject] = await startServer('durable-server.js', [subject, url]);
  const send = (subject, count, tag) => sendRound({ ...servers[subject].info, count, senders: plan.senders, tag, redisPid: redis.pid });
  // Warm-up (JIT, connections, BullMQ scripts loaded), not counted.
  for (const subject of subjects) await send(subject, plan.warmup, `warm_${subject.replace('-', '_')}`);
  const runs = Object.fromEntries(subjects.map((s) => [s, []]));
  for (let r = 0; r < plan.rounds; r++) {
    for (const subject of subjects.map((_, i) => subjects[(i + r) % subjects.length])) {
      runs[subject].push(await send(subject, plan.count, `r${r}_${subject.replace('-', '_')}`));
    }
  }
  const eps = (s) => round(median(runs[s].map((x) => x.eps)), 0);
  const ratio = (a, b) => spread(runs[a].map((x, i) => x.eps / runs[b][i].eps));
  // CPU per event (server process, and redis-server): less noisy than events/s on a shared machine.
  const cpu = (s, field) => round(median(runs[s].map((x) => x[field] ?? 0)), 0);
  const cpuRatio = (a, b) =>
    spread(runs[a].map((x, i) => (runs[b][i].cpuUs + (runs[b][i].redisCpuUs ?? 0)) / (x.cpuUs + (x.redisCpuUs ?? 0))));
  console.log(
    JSON.stringify({
      plan,
      pixhook_eps: eps('pixhook'),
      pixhook_memory_eps: eps('pixhook-memory'),
      bullmq_eps: eps('bullmq'),
      vs_bullmq: ratio('pixhook', 'bullmq'),
      memory_vs_bullmq: ratio('pixhook-memory', 'bullmq'),
      cpu_us_per_event: Object.fromEntries(subjects.map((s) => [s, { server: cpu(s, 'cpuUs'), redis: cpu(s, 'redisCpuUs') }])),
      // raw BullMQ's CPU per event (server + redis) ÷ pixhook's: the events/s ratio a CPU-bound machine would give.
      cpu_vs_bullmq: cpuRatio('pixhook', 'bullmq'),
    }),
  );
} finally {
  for (const server of Object.values(servers)) await server.stop();
  await redis.stop();
}
