// Server CPU per request, route against route: the server's own utime + stime from /proc/<pid>/stat
// (the load generator's CPU is not counted), autocannon in this process driving a fixed number of
// requests at each of bench/servers.js's routes in turn, the order rotated every round. On a shared
// machine this is steadier than requests/s: a burst of someone else's work slows a route's wall clock,
// not the CPU its own requests take. Linux only (reads /proc).
//
//   node bench/server-cpu.js [node|web …]          every route, 7 rounds × 20 000 requests
//   BENCH_CPU_ROUTES=limit,pixhook BENCH_CPU_ROUNDS=9 BENCH_CPU_REQUESTS=30000 node bench/server-cpu.js node
//   BENCH_CPU_PROFILE=/tmp/prof node bench/server-cpu.js node   one server per route under --cpu-prof
//   BENCH_CPU_BEFORE=/tmp/old/bench/servers.js node bench/server-cpu.js node   another build's pixhook as `before`
//
// Prints one JSON line: per framework and route the median µs of server CPU per request (min–max over
// the rounds) and each route's median per-round difference from the hand-written `limit` route.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { bodies, routeHeaders } from './lib/payloads.js';
import { startServer } from './lib/child.js';
import { median, quick, round } from './lib/stats.js';

const frameworks = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const plan = {
  rounds: quick ? 1 : Number(process.env.BENCH_CPU_ROUNDS ?? 7),
  requests: quick ? 2_000 : Number(process.env.BENCH_CPU_REQUESTS ?? 20_000),
  warmup: quick ? 1_000 : 10_000,
  connections: 10,
};
const onlyRoutes = process.env.BENCH_CPU_ROUTES?.split(',');
const profileDir = process.env.BENCH_CPU_PROFILE;
const body = bodies.b350;
const headers = routeHeaders(body);
const benchDir = fileURLToPath(new URL('.', import.meta.url));
const ticksPerSecond = 100; // USER_HZ on Linux

/** The process's user + system CPU, in µs. */
function cpuMicros(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / ticksPerSecond;
}

async function drive(port, amount) {
  const r = await autocannon({
    url: `http://127.0.0.1:${port}/webhooks/pix`,
    method: 'POST',
    connections: plan.connections,
    pipelining: 1,
    amount,
    body: body.text,
    headers,
  });
  if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) throw new Error(`port ${port}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r.requests.total;
}

/** Per route, µs of the server's CPU per request in each round; with `other`, its pixhook route as `before`. */
async function measure(server, routes, other) {
  const targets = routes.map((route) => ({ route, port: server.info[route], pid: server.child.pid }));
  if (other) targets.push({ route: 'before', port: other.info.pixhook, pid: other.child.pid });
  const runs = Object.fromEntries(targets.map(({ route }) => [route, []]));
  for (const { port } of targets) await drive(port, plan.warmup);
  for (let r = 0; r < plan.rounds; r++) {
    const order = targets.map((_, i) => targets[(i + r) % targets.length]);
    for (const { route, port, pid } of order) {
      const start = cpuMicros(pid);
      const done = await drive(port, plan.requests);
      runs[route].push((cpuMicros(pid) - start) / done);
    }
  }
  return runs;
}

const out = { plan, body: `${body.label}, ${body.bytes.length} B`, unit: 'µs of server CPU per request', frameworks: {} };
for (const framework of frameworks.length > 0 ? frameworks : ['node', 'web']) {
  if (profileDir !== undefined) {
    // One server per route, so each profile holds one route's work only.
    const probe = await startServer('servers.js', [framework]);
    const routes = onlyRoutes ?? Object.keys(probe.info);
    await probe.stop();
    for (const route of routes) {
      const server = await startServer('servers.js', [framework], {
        nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profileDir}/${framework}-${route}`],
      });
      try {
        await measure(server, [route]);
      } finally {
        // SIGTERM would skip writing the profile: close stdin, the server then exits normally.
        await new Promise((resolve) => {
          server.child.removeAllListeners('exit');
          server.child.once('exit', resolve);
          server.child.stdin.end();
        });
      }
    }
    continue;
  }
  const server = await startServer(process.env.BENCH_CPU_SERVER ?? 'servers.js', [framework]);
  // BENCH_CPU_BEFORE=<servers.js of another build>: its pixhook route runs alternately as `before` (a change measured in one run).
  const before = process.env.BENCH_CPU_BEFORE && (await startServer(relative(benchDir, process.env.BENCH_CPU_BEFORE), [framework]));
  try {
    const routes = (onlyRoutes ?? Object.keys(server.info)).filter((route) => route in server.info);
    const runs = await measure(server, routes, before);
    if (before) routes.push('before');
    const fw = {};
    for (const route of routes) {
      const rounds = runs[route];
      fw[route] = { median: round(median(rounds), 2), min: round(Math.min(...rounds), 2), max: round(Math.max(...rounds), 2) };
      if (runs.limit && route !== 'limit') fw[route].minus_limit = round(median(rounds.map((x, i) => x - runs.limit[i])), 2);
    }
    out.frameworks[framework] = fw;
  } finally {
    await server.stop();
    if (before) await before.stop();
  }
}
console.log(JSON.stringify(out));
