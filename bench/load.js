// The load generator, run in the adapters bench's own process (never in a server's): a warm-up, then a
// fixed-connection, fixed-duration run. One process for every run saves starting autocannon ~90 times.
// Requests/s is completed requests ÷ the run's measured duration (autocannon's per-second average
// would rest on one sample in a 1.5 s run).
import autocannon from 'autocannon';

export async function load({ url, connections, durationSec, warmupSec, body, headers, overallRate }) {
  // overallRate: requests/s across all connections (unset: as fast as the server answers).
  const base = { url, method: 'POST', connections, pipelining: 1, body, headers, ...(overallRate !== undefined && { overallRate }) };
  if (warmupSec > 0) await autocannon({ ...base, duration: warmupSec });
  const r = await autocannon({ ...base, duration: durationSec });
  return {
    rps: r.requests.total / r.duration,
    requests: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}
