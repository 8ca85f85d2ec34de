// The load generator, in its own process: a warm-up, then a fixed-connection, fixed-duration run.
import autocannon from 'autocannon';

const { url, connections, durationSec, warmupSec, body, headers } = JSON.parse(process.argv[2]);
const base = { url, method: 'POST', connections, pipelining: 1, body, headers };

if (warmupSec > 0) await autocannon({ ...base, duration: warmupSec });
const r = await autocannon({ ...base, duration: durationSec });
console.log(
  JSON.stringify({
    rps: r.requests.average,
    requests: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  }),
);
