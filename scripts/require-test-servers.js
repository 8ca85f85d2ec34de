// Runs first in `npm test`: the tests start real redis-server / redis-cli (a single server and a
// 3-master cluster), real PostgreSQL 15 (initdb, pg_ctl), Debian's Chromium (the console's browser tests) and nginx (API Pix behind a TLS proxy). When one is missing, install it as
// root with apt-get, as .ci/run does, or stop at once with one line naming what to install, rather
// than failing test files on `spawn redis-server ENOENT`. PIXHOOK_NO_INSTALL=1 never installs.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

// Where test/helpers/postgres-server.ts looks for initdb and pg_ctl.
const postgresBin = process.env.PIXHOOK_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const asRoot = process.getuid?.() === 0;

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(command) {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && executable(join(dir, command)));
}

// As root, the helper runs initdb and postgres as the `postgres` user the Debian package creates.
function hasPostgresUser() {
  try {
    return /^postgres:/m.test(readFileSync('/etc/passwd', 'utf8'));
  } catch {
    return false;
  }
}

/** The Debian packages that would bring what is missing. */
function missingPackages() {
  const packages = [];
  if (!onPath('redis-server') || !onPath('redis-cli')) packages.push('redis-server');
  const postgresReady =
    executable(join(postgresBin, 'initdb')) && executable(join(postgresBin, 'pg_ctl')) && (!asRoot || hasPostgresUser());
  if (!postgresReady) packages.push('postgresql');
  if (!executable(process.env.PIXHOOK_CHROMIUM ?? '/usr/bin/chromium')) packages.push('chromium');
  // The API Pix proxy tests put a real nginx (ssl_verify_client) in front of the receiver.
  if (!executable(process.env.PIXHOOK_NGINX ?? '/usr/sbin/nginx')) packages.push('nginx');
  return packages;
}

function describe(packages) {
  const what = {
    'redis-server': 'redis-server and redis-cli (Debian: apt-get install redis-server)',
    postgresql: `PostgreSQL 15's initdb and pg_ctl in ${postgresBin} (Debian: apt-get install postgresql; or set PIXHOOK_PG_BIN)`,
    chromium: 'Chromium at /usr/bin/chromium (Debian: apt-get install chromium; or set PIXHOOK_CHROMIUM)',
    nginx: 'nginx at /usr/sbin/nginx (Debian: apt-get install nginx; or set PIXHOOK_NGINX)',
  };
  return packages.map((p) => what[p]).join(' and ');
}

let missing = missingPackages();
if (missing.length > 0 && asRoot && process.env.PIXHOOK_NO_INSTALL !== '1' && onPath('apt-get')) {
  process.stderr.write(`pixhook tests: installing ${missing.join(' ')} with apt-get (set PIXHOOK_NO_INSTALL=1 to refuse)\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
  if (update.status === 0) spawnSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: ['ignore', 'ignore', 'inherit'], env });
  missing = missingPackages();
}
if (missing.length > 0) {
  process.stderr.write(
    `pixhook tests: missing ${describe(missing)}; install ${missing.length === 1 ? 'it' : 'them'}, then run npm test again\n`,
  );
  process.exit(1);
}
