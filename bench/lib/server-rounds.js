// Alternating rounds against a throwaway PostgreSQL server (bench/postgres-server.js), measured per delivery: the
// wall clock, this process's CPU, the server's CPU and the WAL (bench/book-postgres-cpu.js,
// bench/book-postgres-lock-probe.js). Linux only (reads /proc).
import { readdir, readFile } from 'node:fs/promises';
import { median, round } from './stats.js';

const ticksPerSecond = 100; // USER_HZ on Linux

/** µs of CPU (user + system) of the postmaster and every process it started, living now. */
export async function serverMicros(postmaster) {
  let ticks = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = await readFile(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(entry) === postmaster || Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1e6) / ticksPerSecond;
}

/**
 * `rounds` rounds of `perRound` deliveries of each subject (`subjects[name]()`), in turn, the first subject moving
 * by one each round. `query(text, values)`: a query on the server (its WAL position). Answers, per subject, the
 * per-delivery figures of each round: `{ wall, cpu, user, server, wal }`.
 */
export async function alternatingRounds({ subjects, names, rounds, perRound, postmaster, query }) {
  const wal = async () => (await query('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn;
  const walBytes = async (from, to) => Number((await query('SELECT pg_wal_lsn_diff($2, $1)::float8 AS d', [from, to])).rows[0].d);
  const samples = Object.fromEntries(names.map((name) => [name, { wall: [], cpu: [], user: [], server: [], wal: [] }]));
  for (let r = 0; r < rounds; r++) {
    for (const name of names.map((_, i) => names[(i + r) % names.length])) {
      const lsn = await wal();
      const serverBefore = await serverMicros(postmaster);
      const cpuBefore = process.cpuUsage();
      const start = process.hrtime.bigint();
      for (let i = 0; i < perRound; i++) await subjects[name]();
      const wall = Number(process.hrtime.bigint() - start) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      const serverCpu = (await serverMicros(postmaster)) - serverBefore;
      const s = samples[name];
      s.wall.push(wall / perRound);
      s.cpu.push((cpu.user + cpu.system) / perRound);
      s.user.push(cpu.user / perRound);
      s.server.push(serverCpu / perRound);
      s.wal.push((await walBytes(lsn, await wal())) / perRound);
    }
  }
  return samples;
}

/** A subject's figures: medians over the rounds (min–max), and its wall clock ÷ the `bare` subject's, round by round. */
export function roundFigures(samples, name) {
  const figure = (values, digits = 0) => ({
    median: round(median(values), digits),
    min: round(Math.min(...values), digits),
    max: round(Math.max(...values), digits),
  });
  const s = samples[name];
  const figures = {
    wall_us: figure(s.wall),
    process_cpu_us: figure(s.cpu),
    process_user_us: figure(s.user),
    server_cpu_us: figure(s.server),
    wal_bytes: figure(s.wal),
  };
  if (name !== 'bare' && samples.bare) {
    figures.wall_ratio = figure(
      s.wall.map((wall, i) => wall / samples.bare.wall[i]),
      3,
    );
  }
  return figures;
}

/** The load average now (1, 5 and 15 minutes). */
export const loadAverage = async () => (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
