import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startPostgresServer, type PostgresServer } from '../helpers/postgres-server.js';

export interface PostgresFixture {
  server: PostgresServer;
  pool: pg.Pool;
}

/** A real PostgreSQL cluster for the whole test file, and a pool on it; both gone after the file. */
export function usePostgres(poolOptions: pg.PoolConfig = {}): () => PostgresFixture {
  let fixture: PostgresFixture | undefined;
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    const server = await startPostgresServer();
    const pool = new pg.Pool({ connectionString: server.url, max: 20, ...poolOptions });
    // A pool whose server restarts must not crash the test process.
    pool.on('error', () => {});
    pools.push(pool);
    fixture = { server, pool };
  }, 60_000);
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.end().catch(() => {})));
    await fixture?.server.dispose();
  }, 60_000);
  return () => {
    if (!fixture) throw new Error('postgres is not started yet (use it inside a test)');
    return fixture;
  };
}

let tables = 0;
/** A table name no other test in the file uses. */
export function freshTable(prefix = 'inbox'): string {
  return `${prefix}_${process.pid}_${++tables}`;
}
