import type { DurableWorker } from '../../src/redis/index.js';
import { checkHealth } from '../../src/processing/health-checks.js';
import { RedisUnavailableError } from '../../src/redis/redis-unavailable-error.js';
import { portFrom, UsageError } from './cli-args.js';
import type { FlagHelp } from './command-help.js';
import { serveHealth, type HealthSource } from './health-route.js';

export const workerHealthFlags = {
  'health-port': { type: 'string' },
  'health-host': { type: 'string', default: '127.0.0.1' },
} as const;

export const workerHealthFlagsHelp: FlagHelp[] = [
  { flag: '--health-port <n>', meaning: 'serve GET /healthz on this port: 200 while the queue’s Redis answers, else 503 (default: none)' },
  { flag: '--health-host <h>', meaning: 'the address /healthz listens on (default 127.0.0.1)' },
];

interface PingableClient {
  readonly status?: string;
  ping(): Promise<unknown>;
}

/** The worker's one backend, its queue's Redis connection: connected and answering PING. */
function workerHealth(worker: DurableWorker): HealthSource {
  const queue = {
    enqueue: () => Promise.reject(new RedisUnavailableError('the worker enqueues nothing')),
    counts: async () => {
      const client = (await worker.worker.getBackend().client) as unknown as PingableClient;
      // A connection BullMQ is reconnecting would queue the PING until the bound: say so at once.
      if (client.status !== undefined && client.status !== 'ready')
        throw new RedisUnavailableError(`redis is not connected (${client.status})`);
      await client.ping();
    },
  };
  return { health: () => checkHealth({ queue }, 2_000) };
}

/** `--health-port`: serves the worker's `/healthz`; undefined without the flag. */
export async function serveWorkerHealth(
  values: { 'health-port'?: string | undefined; 'health-host': string },
  worker: DurableWorker,
): Promise<{ url: string; close(): Promise<void> } | undefined> {
  if (values['health-port'] === undefined) return undefined;
  const port = portFrom(values['health-port'], 0);
  try {
    return await serveHealth(workerHealth(worker), values['health-host'], port);
  } catch (error) {
    throw new UsageError(`--health-port ${port}: ${(error as Error).message}`);
  }
}
