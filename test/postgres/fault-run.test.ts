import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgresServer, type PostgresServer } from '../helpers/postgres-server.js';
import { mapLimit, paidDelivery, sendUntilAccepted, until, type Delivery } from '../redis/deliveries.js';
import { startFixture, startReceiver, useRedisWithFixtures, type FixtureProcess } from '../redis/fixture-process.js';

const workerScript = fileURLToPath(new URL('./fixtures/ledger-worker.js', import.meta.url));
const redisServer = useRedisWithFixtures();
let server: PostgresServer;
let pool: pg.Pool;
beforeAll(async () => {
  server = await startPostgresServer();
  pool = new pg.Pool({ connectionString: server.url });
  pool.on('error', () => {});
}, 60_000);
afterAll(async () => {
  await pool.end().catch(() => {});
  await server.dispose();
}, 60_000);

/** `deliveries` in a fixed shuffle: 30 % of them redeliver an earlier event, often to the other receiver. */
function schedule(name: string, deliveries: number): { list: Delivery[]; unique: number } {
  const unique = Math.round(deliveries * 0.7);
  const events = Array.from({ length: unique }, (_, i) => paidDelivery(`tx_${name}_${i}`, 100 + i));
  const list = [...events, ...events.slice(0, deliveries - unique)];
  let seed = 7;
  for (let i = list.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = Math.max(0, i - (seed % 64));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return { list, unique };
}

interface RunResult {
  unique: number;
  rows: number;
  distinct: number;
  missing: number;
  doubled: number;
  kills: number;
  postgresRestarts: number;
  hungKeys: string[];
  skippedKeys: Set<string>;
  doubledKeys: Set<string>;
  seconds: number;
}

async function faultRun(
  name: string,
  options: { inbox: boolean; deliveries: number; kills: number; restartPostgres: boolean },
): Promise<RunResult> {
  const startedAt = performance.now();
  const table = `inbox_${name}`;
  const ledger = `ledger_${name}`;
  await pool.query(`CREATE TABLE ${ledger} (event_key text NOT NULL, tx_id text NOT NULL, amount_in_cents integer NOT NULL)`);
  await pool.query(
    `CREATE TABLE ${table} (scope text NOT NULL, key text NOT NULL, done_at timestamptz NOT NULL DEFAULT now(), expires_at timestamptz NOT NULL, PRIMARY KEY (scope, key))`,
  );
  const env = { REDIS_URL: redisServer().url, QUEUE_NAME: name, PREFIX: `${name}:dedupe:` };
  const receivers = await Promise.all([1, 2].map(() => startReceiver({ ...env, MODE: 'durable' })));
  const workerEnv = { ...env, PG_URL: server.url, LEDGER: ledger, TABLE: table, INBOX: options.inbox ? '1' : '0', CONCURRENCY: '8' };
  const startWorker = (hangAfter: number | undefined) =>
    startFixture(workerScript, hangAfter === undefined ? workerEnv : { ...workerEnv, HANG_AFTER: String(hangAfter) });
  let killsLeft = options.kills;
  // Two workers at all times; each one about to be killed hangs after some commits.
  const workers: FixtureProcess[] = [startWorker(killsLeft > 0 ? 250 : undefined), startWorker(killsLeft > 1 ? 600 : undefined)];
  await Promise.all(workers.map((w) => w.waitFor((l) => l['ready'] === true)));
  const hungKeys: string[] = [];
  let restarted = !options.restartPostgres;
  let postgresRestarts = 0;
  const committed = () => workers.reduce((n, w) => n + w.lines.filter((l) => typeof l['committed'] === 'string').length, 0);

  const { list, unique } = schedule(name, options.deliveries);
  let sending = true;
  const send = mapLimit(list, 32, (delivery, i) =>
    sendUntilAccepted(receivers[i % 2]!.url, delivery, { pauseMs: 20, maxTries: 500 }),
  ).finally(() => (sending = false));

  // The faults, each on a signal, never on timing: kill a worker once its handler committed and hung.
  const faults = (async () => {
    while (killsLeft > 0 || !restarted) {
      for (const w of [...workers]) {
        const hung = w.lines.find((l) => typeof l['hanging'] === 'string');
        if (!hung || w.child.signalCode !== null) continue;
        await w.stop('SIGKILL');
        hungKeys.push(hung['hanging'] as string);
        killsLeft--;
        const replacement = startWorker(killsLeft > 1 ? 300 : undefined);
        workers.push(replacement);
        await replacement.waitFor((l) => l['ready'] === true);
      }
      if (!restarted && hungKeys.length >= 1 && committed() >= unique / 2) {
        restarted = true;
        await server.restart();
        postgresRestarts++;
      }
      if (!sending && killsLeft > 0 && workers.every((w) => !w.lines.some((l) => typeof l['hanging'] === 'string'))) break;
      await new Promise((r) => setTimeout(r, 10));
    }
  })();

  const results = await send;
  await faults;
  const redis = new Redis(redisServer().url);
  const finished = async () => (await redis.zcard(`{pixhook}:${name}:completed`)) + (await redis.zcard(`{pixhook}:${name}:failed`));
  await until(async () => (await finished()) >= unique, 100);
  const deadLetters = await redis.zcard(`{pixhook}:${name}:failed`);
  redis.disconnect();

  const { rows } = await pool.query(`SELECT event_key, count(*)::int AS n FROM ${ledger} GROUP BY event_key`);
  const counts = new Map(rows.map((r: { event_key: string; n: number }) => [r.event_key, r.n]));
  // By transaction id: the dedupe key's exact form is the core's business (it carries more facts than the id).
  const { rows: byTx } = await pool.query(`SELECT DISTINCT tx_id FROM ${ledger}`);
  const booked = new Set(byTx.map((r: { tx_id: string }) => r.tx_id));
  const expected = Array.from({ length: unique }, (_, i) => `tx_${name}_${i}`);
  const skippedKeys = new Set(
    workers.flatMap((w) => w.lines.filter((l) => typeof l['skipped'] === 'string').map((l) => l['skipped'] as string)),
  );
  await Promise.all([...workers, ...receivers.map((r) => r.process)].map((p) => p.stop('SIGKILL')));
  expect(results.every((r) => r.status === 200)).toBe(true);
  expect(deadLetters).toBe(0);
  return {
    unique,
    rows: [...counts.values()].reduce((a, b) => a + b, 0),
    distinct: counts.size,
    missing: expected.filter((id) => !booked.has(id)).length,
    doubled: [...counts.values()].filter((n) => n > 1).length,
    kills: hungKeys.length,
    postgresRestarts,
    hungKeys,
    skippedKeys,
    doubledKeys: new Set([...counts].filter(([, n]) => n > 1).map(([k]) => k)),
    seconds: (performance.now() - startedAt) / 1000,
  };
}

function report(label: string, r: RunResult): void {
  console.log(
    `${label}: ${r.unique} unique events · ledger rows ${r.rows} (distinct ${r.distinct}) · missing ${r.missing} · events booked twice ${r.doubled} · ` +
      `workers killed after commit ${r.kills} · Postgres restarts ${r.postgresRestarts} · re-runs skipped by the inbox ${r.skippedKeys.size} · ${r.seconds.toFixed(1)} s`,
  );
}

describe('fault run: two receivers, durable workers killed after COMMIT and before the ack, Postgres restarted', () => {
  it('with the inbox: 5 000 deliveries (30 % duplicates), exactly one ledger row per unique event', async () => {
    const r = await faultRun('with_inbox', { inbox: true, deliveries: 5_000, kills: 3, restartPostgres: true });
    report('with the inbox', r);
    expect(r.kills).toBe(3);
    expect(r.postgresRestarts).toBe(1);
    expect(r.missing).toBe(0);
    expect(r.doubled).toBe(0);
    expect(r.rows).toBe(r.unique);
    // Each killed worker's committed-but-unacknowledged job ran again elsewhere, and was skipped.
    for (const key of r.hungKeys) expect(r.skippedKeys.has(key)).toBe(true);
  }, 120_000);

  it('without the inbox (the same INSERT in a bare transaction) the same faults book events twice', async () => {
    const r = await faultRun('bare', { inbox: false, deliveries: 5_000, kills: 3, restartPostgres: true });
    report('without the inbox', r);
    expect(r.kills).toBe(3);
    expect(r.postgresRestarts).toBe(1);
    expect(r.missing).toBe(0);
    // At least the three hung jobs, committed and never acknowledged, ran and booked again.
    for (const key of r.hungKeys) expect(r.doubledKeys.has(key)).toBe(true);
    expect(r.rows).toBeGreaterThan(r.unique);
  }, 120_000);
});
