// Section 2: requests/s of each adapter against the same framework's bare raw-body route, its
// hand-written verifying route (bare + the limit's work) and, on node:http, @octokit/webhooks'
// createNodeMiddleware; autocannon in this process (the servers run in another), alternating the
// routes (the order rotated every round). Every ratio is the median of per-round ratios, with its min–max over the rounds.
import { bodies, routeHeaders } from './lib/payloads.js';
import { startServer } from './lib/child.js';
import { load } from './load.js';
import { median, quick, round, spread } from './lib/stats.js';

// BENCH_FRAMEWORKS=node,fastify runs a subset (while developing; run.js needs all four).
const frameworks = process.env.BENCH_FRAMEWORKS?.split(',') ?? ['express', 'fastify', 'node', 'web'];
// Many short rounds rather than a few long ones: noise on a shared 2-core machine comes in bursts of
// seconds, and the median of 7 alternating rounds outvotes a burst that one long round would absorb.
const plan = quick
  ? { rounds: 1, durationSec: 0.5, warmupSec: 0.2, rewarmSec: 0, connections: 10 }
  : {
      rounds: Math.max(7, Number(process.env.BENCH_ADAPTER_ROUNDS ?? 7)),
      durationSec: 1.5,
      warmupSec: 0.5,
      rewarmSec: 0.1,
      connections: 10,
    };
const body = bodies.b350;
// Every route gets the same headers: pixhook's X-Signature and octokit's GitHub headers (same HMAC).
const headers = routeHeaders(body);

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
        const result = await load({
          url: `http://127.0.0.1:${server.info[which]}/webhooks/pix`,
          connections: plan.connections,
          durationSec: plan.durationSec,
          // A full warm-up on a route's first turn (JIT); later turns only open their connections.
          warmupSec: r === 0 ? plan.warmupSec : plan.rewarmSec,
          body: body.text,
          headers,
        });
        if (result.non2xx > 0 || result.errors > 0) throw new Error(`${framework} ${which}: ${JSON.stringify(result)}`);
        runs[which].push(result);
      }
    }
    const rps = (route) => round(median(runs[route].map((x) => x.rps)), 0);
    const ratio = (a, b) => spread(runs[a].map((x, i) => x.rps / runs[b][i].rps));
    const fw = {
      bare_rps: rps('bare'),
      limit_rps: rps('limit'),
      pixhook_rps: rps('pixhook'),
      bare_p99_ms: median(runs.bare.map((x) => x.p99)),
      pixhook_p99_ms: median(runs.pixhook.map((x) => x.p99)),
      // Each ratio: { median, min, max } over the rounds.
      vs_bare: ratio('pixhook', 'bare'),
      limit_vs_bare: ratio('limit', 'bare'),
      vs_limit: ratio('pixhook', 'limit'),
    };
    if (runs.octokit)
      Object.assign(fw, {
        octokit_rps: rps('octokit'),
        vs_octokit: ratio('pixhook', 'octokit'),
        octokit_vs_limit: ratio('octokit', 'limit'),
      });
    out.frameworks[framework] = fw;
  } finally {
    await server.stop();
  }
}
console.log(JSON.stringify(out));
