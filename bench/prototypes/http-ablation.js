// node bench/prototypes/http-ablation.js [--quick]: autocannon (own process) against every route of
// ablation-server.js, alternating, rounds rotated; ratios to the hand-written route, medians of rounds.
import { runJson, startServer } from '../lib/child.js';
import { bodies } from '../lib/payloads.js';
import { median, quick, round } from '../lib/stats.js';

const plan = quick ? { rounds: 1, durationSec: 1, warmupSec: 0 } : { rounds: Number(process.env.ROUNDS ?? 3), durationSec: 2, warmupSec: 1 };
const body = bodies.b350;
const server = await startServer('prototypes/ablation-server.js');
try {
  const routes = Object.keys(server.info);
  const runs = Object.fromEntries(routes.map((r) => [r, []]));
  for (let r = 0; r < plan.rounds; r++) {
    for (const which of routes.map((_, i) => routes[(i + r) % routes.length])) {
      const result = await runJson('load.js', [
        JSON.stringify({
          url: `http://127.0.0.1:${server.info[which]}/webhooks/pix`,
          connections: 10,
          ...plan,
          body: body.text,
          headers: { 'content-type': 'application/json', 'x-signature': body.signature },
        }),
      ]);
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${which}: ${JSON.stringify(result)}`);
      runs[which].push(result.rps);
    }
  }
  const out = {};
  for (const route of routes) {
    out[route] = { rps: round(median(runs[route]), 0), vs_handwritten: round(median(runs[route].map((x, i) => x / runs.handwritten[i])), 3) };
  }
  console.log(JSON.stringify({ plan, routes: out }));
} finally {
  await server.stop();
}
