import type { ConnectionOptions } from 'bullmq';
import type { Redis, RedisOptions } from 'ioredis';

/** A Redis URL (`redis://127.0.0.1:6379`), BullMQ connection options, or an ioredis client pixhook will not close. */
export type RedisConnection = string | ConnectionOptions;

/** What BullMQ gets, and how to close what pixhook opened. */
export interface OpenedConnection {
  connection: ConnectionOptions;
  close(): Promise<void>;
}

/**
 * Producers fail fast while Redis is down (the receiver answers 503 and the sender retries);
 * workers wait for it (BullMQ's blocking calls need `maxRetriesPerRequest: null`).
 */
export async function openConnection(connection: RedisConnection, role: 'producer' | 'worker'): Promise<OpenedConnection> {
  const roleOptions: RedisOptions = role === 'producer' ? { enableOfflineQueue: false } : { maxRetriesPerRequest: null };
  if (typeof connection === 'string') {
    const { Redis: RedisClient } = await import('ioredis');
    const client = new RedisClient(connection, roleOptions);
    // BullMQ re-emits connection errors on the queue/worker, which log them; this only keeps ioredis quiet.
    client.on('error', () => {});
    return {
      connection: client as ConnectionOptions,
      close: async () => {
        await client.quit().catch(() => client.disconnect());
      },
    };
  }
  if (isClient(connection)) return { connection, close: async () => {} };
  return { connection: { ...connection, ...roleOptions } as ConnectionOptions, close: async () => {} };
}

function isClient(connection: ConnectionOptions): boolean {
  return typeof (connection as Partial<Redis>).duplicate === 'function';
}
