import type { CursorStore } from '../reconcile/cursor-store.js';
import { defineScript, scriptRunner, type RedisClientLike } from './redis-client.js';
import { persistenceGate, type RedisPersistenceOptions } from './redis-persistence.js';
import { optionNames, refuseUnknownOptions } from '../shared/known-options.js';

export interface RedisCursorStoreOptions extends RedisPersistenceOptions {
  client: RedisClientLike;
  /** Key prefix. Default `pixhook:{reconcile}:` (each cursor is one key, `<prefix>cursor:<name>`). */
  prefix?: string;
}

export interface RedisCursorStore extends CursorStore {
  /** Resolves once the server's persistence was checked; rejects when `requirePersistence` refuses it. */
  ready(): Promise<void>;
}

const getScript = defineScript(`return redis.call('GET', KEYS[1])`);
const setScript = defineScript(`redis.call('SET', KEYS[1], ARGV[1]) return 1`);

/** The listing reconciler's cursor on Redis: it survives a restart of the process. */
export function redisCursorStore(options: RedisCursorStoreOptions): RedisCursorStore {
  refuseUnknownOptions(options, redisCursorStoreOptionNames, 'redisCursorStore');
  const redis = scriptRunner(options.client);
  const prefix = options.prefix ?? 'pixhook:{reconcile}:';
  const persistence = persistenceGate(options.client, options);
  const key = (name: string) => `${prefix}cursor:${name}`;
  return {
    ready: () => persistence.ready(),
    async get(name) {
      await persistence.ready();
      const value = await redis.run(getScript, [key(name)], []);
      const text = value instanceof Buffer ? value.toString('utf8') : value;
      const position = typeof text === 'string' ? Number(text) : Number.NaN;
      return Number.isFinite(position) ? position : undefined;
    },
    async set(name, position) {
      await persistence.ready();
      await redis.run(setScript, [key(name)], [String(Math.floor(position))]);
    },
  };
}

/** Every option redisCursorStore takes. */
const redisCursorStoreOptionNames = optionNames<RedisCursorStoreOptions>()(['client', 'prefix', 'requirePersistence', 'logger']);
