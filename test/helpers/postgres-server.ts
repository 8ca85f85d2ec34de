import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);
export const postgresBin = process.env.PIXHOOK_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** A throwaway PostgreSQL 15 cluster on a loopback port, owned by one test file. */
export interface PostgresServer {
  readonly port: number;
  /** `postgres://pix@127.0.0.1:PORT/postgres` (trust auth, loopback only). */
  readonly url: string;
  /** Graceful stop (`-m fast`); the data stays for `start()`. */
  stop(): Promise<void>;
  start(): Promise<void>;
  restart(): Promise<void>;
  /** `-m immediate`: every backend is cut off at once, like a crash; `start()` recovers from the WAL. */
  crash(): Promise<void>;
  /** Stops the server and removes its directory. */
  dispose(): Promise<void>;
}

// initdb and postgres refuse to run as root: run them as the postgres user when we are root.
function asServerUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

async function pg(command: string, args: string[]): Promise<void> {
  const [file, argv] = asServerUser(join(postgresBin, command), args);
  await run(file, argv, { timeout: 60_000 });
}

export async function startPostgresServer(): Promise<PostgresServer> {
  const root = await mkdtemp(join(tmpdir(), 'pixhook-pg-'));
  await chmod(root, 0o755); // mkdtemp makes 0700 dirs the postgres user cannot enter
  if (process.getuid?.() === 0) await run('chown', ['postgres', root]);
  const dir = join(root, 'data');
  const port = await freePort();
  await pg('initdb', ['-D', dir, '-A', 'trust', '-U', 'pix', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`;
  const start = () => pg('pg_ctl', ['-D', dir, '-o', options, '-l', join(root, 'log'), '-w', '-t', '60', 'start']);
  const stopWith = (mode: 'fast' | 'immediate') => pg('pg_ctl', ['-D', dir, '-m', mode, '-w', 'stop']);
  await start();
  let disposed = false;
  return {
    port,
    url: `postgres://pix@127.0.0.1:${port}/postgres`,
    start,
    stop: () => stopWith('fast'),
    async restart() {
      await stopWith('fast');
      await start();
    },
    crash: () => stopWith('immediate'),
    async dispose() {
      if (disposed) return;
      disposed = true;
      await stopWith('immediate').catch(() => {});
      await rm(root, { recursive: true, force: true });
    },
  };
}
