import type pg from 'pg';
import type { DedupeStore, Logger } from '../../src/index.js';
import { stderrLogger } from './stderr-logger.js';

/**
 * A pool on the app's database, as every command opens it (four connections); a connection's error is logged
 * under the command's name, never thrown (an idle client's error would otherwise crash the process).
 */
export async function openPostgresPool(url: string, command: string, logger: Logger = stderrLogger): Promise<pg.Pool> {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', (error: Error) => logger.warn({ error: error.message }, `pixhook ${command}: postgres connection error`));
  return pool;
}

/**
 * That pool and the inbox's dedupe store on it: the one the app's receivers share (its table migrated, idempotent).
 * `close` gives the inbox's connection back before `pool.end()`, which would otherwise wait for it; a failed
 * migration closes both before it throws.
 */
export async function openPostgresInbox(
  url: string,
  command: string,
  logger?: Logger,
): Promise<{ pool: pg.Pool; store: DedupeStore; close(): Promise<void> }> {
  const pool = await openPostgresPool(url, command, logger);
  const { postgresInbox } = await import('../../src/postgres/index.js');
  const inbox = postgresInbox({ pool });
  const close = async () => {
    await inbox.close();
    await pool.end();
  };
  try {
    await inbox.migrate();
  } catch (error) {
    await close();
    throw error;
  }
  return { pool, store: inbox.store, close };
}
