// A throwaway PostgreSQL 15 cluster on a loopback port for the benchmark (like test/helpers/postgres-server.ts).
// Durable settings by default (fsync on, synchronous_commit on): commits cost what they cost in production.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { freePort } from './lib/free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const bin = process.env.PIXHOOK_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const asServerUser = (command, args) =>
  process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
const pg = (command, args) => run(...asServerUser(join(bin, command), args), { timeout: 60_000 });

/** `settings`: more `-c name=value` server settings. Resolves with its URL, its postmaster's pid and `stop()`. */
export async function startPostgresServer({ fsync = true, settings = [] } = {}) {
  const root = await mkdtemp(join(tmpdir(), 'pixhook-bench-pg-'));
  await chmod(root, 0o755);
  if (process.getuid?.() === 0) await run('chown', ['postgres', root]);
  const dir = join(root, 'data');
  const port = await freePort();
  await pg('initdb', ['-D', dir, '-A', 'trust', '-U', 'pix', '-E', 'UTF8', '--locale=C', ...(fsync ? [] : ['--no-sync'])]);
  const more = [...(fsync ? [] : ['fsync=off']), ...settings].map((setting) => ` -c ${setting}`).join('');
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1${more}`;
  await pg('pg_ctl', ['-D', dir, '-o', options, '-l', join(root, 'log'), '-w', 'start']);
  return {
    url: `postgres://pix@127.0.0.1:${port}/postgres`,
    postmaster: Number((await readFile(join(dir, 'postmaster.pid'), 'utf8')).split('\n')[0]),
    async stop() {
      await pg('pg_ctl', ['-D', dir, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      await rm(root, { recursive: true, force: true });
    },
  };
}
