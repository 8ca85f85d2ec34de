import type { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import { redactedUrl } from '../shared/redacted-url.js';

/**
 * What a Redis URL names: one server (`redis://`, `rediss://`) or a Cluster by its seed nodes
 * (`redis+cluster://host:port,host:port`, `rediss+cluster://…` for TLS). Credentials are shared by every node.
 */
interface ParsedRedisUrl {
  readonly cluster: boolean;
  readonly nodes: readonly { host: string; port: number }[];
  readonly username?: string;
  readonly password?: string;
  readonly tls: boolean;
  /** The database number (single server only; a Cluster has only db 0). */
  readonly db?: number;
}

const schemes: Record<string, { cluster: boolean; tls: boolean }> = {
  'redis:': { cluster: false, tls: false },
  'rediss:': { cluster: false, tls: true },
  'redis+cluster:': { cluster: true, tls: false },
  'rediss+cluster:': { cluster: true, tls: true },
};

/** `name` is the option the URL came in (`url`, `connection`, the CLI's `--redis`), for the message when it is refused. */
export function parseRedisUrl(url: string, name = 'url'): ParsedRedisUrl {
  const match = /^([a-z+]+:)\/\/(?:([^@/]*)@)?([^/?#]*)(?:\/(\d*))?(?:[?#].*)?$/i.exec(url);
  const scheme = match ? schemes[match[1]!.toLowerCase()] : undefined;
  if (!match || !scheme) {
    throw new PixhookConfigError(
      `pixhook: \`${name}\` must be a redis://, rediss://, redis+cluster:// or rediss+cluster:// URL, got "${redactedUrl(url)}"`,
    );
  }
  const [, , auth, hosts, db] = match;
  const nodes = hosts!.split(',').map((hostPort) => parseHostPort(hostPort, url, name));
  if (!scheme.cluster && nodes.length > 1) {
    throw new PixhookConfigError(
      `pixhook: \`${name}\` must use redis+cluster:// or rediss+cluster:// to list several hosts, got "${redactedUrl(url)}"`,
    );
  }
  if (scheme.cluster && db !== undefined && db !== '' && db !== '0') {
    throw new PixhookConfigError(
      `pixhook: \`${name}\` must name database 0 or none (a Redis Cluster has only database 0), got "${redactedUrl(url)}"`,
    );
  }
  const { username, password } = parseAuth(auth);
  return {
    cluster: scheme.cluster,
    nodes,
    tls: scheme.tls,
    ...(username !== undefined && { username }),
    ...(password !== undefined && { password }),
    ...(!scheme.cluster && db !== undefined && db !== '' && { db: Number(db) }),
  };
}

/** An ioredis `Redis` or `Cluster` for the URL; `options` apply to every node. */
export async function createRedisClient(url: string, options: RedisOptions = {}, name = 'url'): Promise<Redis | Cluster> {
  const parsed = parseRedisUrl(url, name);
  const { Redis: RedisClient, Cluster: ClusterClient } = await import('ioredis');
  const nodeOptions: RedisOptions = {
    ...options,
    ...(parsed.username !== undefined && { username: parsed.username }),
    ...(parsed.password !== undefined && { password: parsed.password }),
    ...(parsed.tls && { tls: {} }),
  };
  if (!parsed.cluster) {
    const node = parsed.nodes[0]!;
    return new RedisClient({ ...nodeOptions, host: node.host, port: node.port, ...(parsed.db !== undefined && { db: parsed.db }) });
  }
  // Queueing and lazy connect are the Cluster's own; the rest (credentials, timeouts, retries per request) is each node's.
  const { enableOfflineQueue, lazyConnect, ...redisOptions } = nodeOptions;
  const clusterOptions: ClusterOptions = {
    redisOptions,
    ...(enableOfflineQueue !== undefined && { enableOfflineQueue }),
    ...(lazyConnect !== undefined && { lazyConnect }),
  };
  const cluster = new ClusterClient([...parsed.nodes], clusterOptions);
  return cluster;
}

function parseHostPort(hostPort: string, url: string, name: string): { host: string; port: number } {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(hostPort);
  const port = match?.[2] === undefined ? 6379 : Number(match[2]);
  if (!match || port < 1 || port > 65_535) {
    throw new PixhookConfigError(
      `pixhook: \`${name}\` must list each host as host or host:port (port from 1 to 65535), got host:port "${hostPort}" in "${redactedUrl(url)}"`,
    );
  }
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

function parseAuth(auth: string | undefined): { username?: string; password?: string } {
  if (auth === undefined || auth === '') return {};
  const colon = auth.indexOf(':');
  const user = decodeURIComponent(colon === -1 ? auth : auth.slice(0, colon));
  const password = colon === -1 ? undefined : decodeURIComponent(auth.slice(colon + 1));
  // `redis://:secret@host` is the common password-only form; `redis://user@host` names a user with no password.
  return { ...(user !== '' && { username: user }), ...(password !== undefined && { password }) };
}
