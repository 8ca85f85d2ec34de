// Section 2: requests/s of each adapter against the same framework's bare raw-body route (and that
// route plus the limit's work), with autocannon in a separate process, alternating the three routes;
// ratios are medians of per-round ratios.
import { bodies } from './lib/payloads.js';
import { runJson, startServer } from './lib/child.js';
import { median, quick, round } from './lib/stats.js';

const frameworks = ['express', 'fastify', 'node', 'web'];
const plan = quick
  ? { rounds: 1, durationSec: 1, warmupSec: 0, connections: 10 }
  : { rounds: Number(process.env.BENCH_ADAPTER_ROUNDS ?? 3), durationSec: 3, warmupSec: 1, connections: 10 };
const body = bodies.b350;
const headers = { 'content-type': 'application/json', 'x-signature': body.signature };

const out = { plan, body: `${body.label}, ${body.bytes.length} B`, frameworks: {} };
for (const framework of frameworks) {
  const server = await startServer('servers.js', [framework]);
  try {
    const runs = { bare: [], limit: [], pixhook: [] };
    const routes = Object.keys(runs);
    for (let r = 0; r < plan.rounds; r++) {
      // Rotate which goes first, so none always gets the warmer machine.
      const order = routes.map((_, i) => routes[(i + r) % routes.length]);
      for (const which of order) {
        const result = await runJson('load.js', [
          JSON.stringify({
            url: `http://127.0.0.1:${server.info[which]}/webhooks/pix`,
            connections: plan.connections,
            durationSec: plan.durationSec,
            warmupSec: plan.warmupSec,
            body: body.text,
            headers,
          }),
        ]);
        if (result.non2xx > 0 || result.errors > 0) throw new Error(`${framework} ${which}: ${JSON.stringify(result)}`);
        runs[which].push(result);
      }
    }
    const ratio = (a, b) => round(median(runs[a].map((x, i) => x.rps / runs[b][i].rps)), 3);
    out.frameworks[framework] = {
      bare_rps: round(median(runs.bare.map((x) => x.rps)), 0),
      limit_rps: round(median(runs.limit.map((x) => x.rps)), 0),
      pixhook_rps: round(median(runs.pixhook.map((x) => x.rps)), 0),
      bare_p99_ms: median(runs.bare.map((x) => x.p99)),
      pixhook_p99_ms: median(runs.pixhook.map((x) => x.p99)),
      ratio: ratio('pixhook', 'bare'),
      limit_vs_bare: ratio('limit', 'bare'),
      pixhook_vs_limit: ratio('pixhook', 'limit'),
    };
  } finally {
    await server.stop();
  }
}
console.log(JSON.stringify(out));
