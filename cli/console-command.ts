import { isLoopback } from '../src/console/console-security.js';
import { parseCommandLine, portFrom, runCommand, UsageError } from './shared/cli-args.js';
import type { CommandHelp } from './shared/command-help.js';
import { redisEnvHelp } from './shared/redis-backend.js';

export const consoleHelp: CommandHelp = {
  usage: 'console (--redis <url> | --postgres <url>) [--port 4001] [--host 127.0.0.1] [--token <t>]',
  about:
    'Serves the console over a journal and a book shared by your receivers (Redis or Postgres). Binds 127.0.0.1; any other address needs a token.',
  flags: [
    { flag: '--redis <url>', meaning: 'read the journal and the book from this Redis (default: PIXHOOK_REDIS_URL)' },
    { flag: '--postgres <url>', meaning: 'read the journal and the book from this PostgreSQL' },
    { flag: '--port <n>', meaning: 'the port to listen on, 0–65535 (0: any free port) (default 4001)' },
    { flag: '--host <h>', meaning: 'the address to listen on; anything but loopback needs --token (default 127.0.0.1)' },
    { flag: '--token <t>', meaning: 'the token every request must carry, at least 16 characters (default: PIXHOOK_CONSOLE_TOKEN)' },
  ],
  env: { ...redisEnvHelp, PIXHOOK_CONSOLE_TOKEN: 'the console token, when no --token is given' },
};

/**
 * `pixhook console`: the console of several instances. The address and the token are checked before
 * anything is opened: a console reachable from other machines without a token is refused (exit 2).
 */
export function consoleCommand(argv: string[]): Promise<number> {
  return runCommand('console', async () => {
    const { values } = parseCommandLine(argv, {
      redis: { type: 'string' },
      postgres: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string', default: '127.0.0.1' },
      token: { type: 'string' },
    });
    const token = values.token ?? (process.env['PIXHOOK_CONSOLE_TOKEN'] || undefined);
    if (!isLoopback(values.host) && token === undefined)
      throw new UsageError(
        `--host ${values.host} is reachable from other machines: give --token <t> (or PIXHOOK_CONSOLE_TOKEN), or bind 127.0.0.1`,
      );
    if (token !== undefined && token.trim().length < 16)
      throw new UsageError('--token must be at least 16 characters (openssl rand -hex 16)');
    portFrom(values.port, 4001);
    const redis = values.redis ?? (process.env['PIXHOOK_REDIS_URL'] || undefined);
    if (redis !== undefined && values.postgres !== undefined) throw new UsageError('give --redis or --postgres, not both');
    if (redis === undefined && values.postgres === undefined)
      throw new UsageError('pixhook console needs --redis <url> or --postgres <url>: the journal and the book your receivers share');
    // The shared journals (redisJournal, postgresJournal) are built on the journal branch; until they land here, say so plainly.
    throw new UsageError(
      `the shared journal for ${redis !== undefined ? '--redis' : '--postgres'} is not in this build yet; mount createConsole({ journal }) in your own server meanwhile`,
    );
  });
}
