// Section 2: requests/s of each adapter against the same framework's bare raw-body route, its
// hand-written verifying route (bare + the limit's work) and, on node:http, @octokit/webhooks'
// createNodeMiddleware and the lean prototype; autocannon in a separate process, alternating the
// routes; ratios are medians of per-round ratios.
import { bodies } from './lib/payloads.js';
import { runJson, startServer } from './lib/child.js';
import { median, quick, round } from './lib/stats.js';

// BENCH_FRAMEWORKS=node,fastify runs a subset (while developing; run.js needs all four).
const frameworks = process.env.BENCH_FRAMEWORKS?.split(',') ?? ['express', 'fastify', 'node', 'web'];
const plan = quick
  ? { rounds: 1, durationSec: 1, warmupSec: 0, connections: 10 }
  : { rounds: Number(process.env.BENCH_ADAPTER_ROUNDS ?? 3), durationSec: 3, warmupSec: 1, connections: 10 };
const body = bodies.b350;
// Every route gets the same headers: pixhook's X-Signature and octokit's GitHub headers (same HMAC).
const headers = {
  'content-type': 'application/json',
  'x-signature': body.signature,
  'x-hub-signature-256': body.signature,
  'x-github-event': 'push',
  'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
};

const out = { plan, body: `${body.label}, ${body.bytes.length} B`, frameworks: {} };
for (const framework of frameworks) {
  const server = await startServer('servers.js', [framework]);
  try {
    const runs = Object.fromEntries(Object.keys(server.info).map((route) => [route, []]));
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
    if (runs.octokit) {
      Object.assign(out.frameworks[framework], {
        octokit_rps: round(median(runs.octokit.map((x) => x.rps)), 0),
        pixhook_vs_octokit: ratio('pixhook', 'octokit'),
        octokit_vs_limit: ratio('octokit', 'limit'),
      });
    }
    if (runs.prototype) {
      Object.assign(out.frameworks[framework], {
        prototype_rps: round(median(runs.prototype.map((x) => x.rps)), 0),
        prototype_vs_limit: ratio('prototype', 'limit'),
        prototype_vs_octokit: runs.octokit ? ratio('prototype', 'octokit') : undefined,
      });
    }
  } finally {
    await server.stop();
  }
}
console.log(JSON.stringify(out));
