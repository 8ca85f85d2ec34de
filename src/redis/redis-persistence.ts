import { guardLogger, type Logger } from '../shared/logger.js';
import { PixhookConfigError } from '../shared/pixhook-error.js';
import { withTimeout } from '../shared/with-timeout.js';
import type { RedisClientLike } from './redis-client.js';
import { RedisUnavailableError } from './redis-unavailable-error.js';
import { replyText } from './redis-replies.js';

/** The options every Redis store takes about its server's persistence. */
export interface RedisPersistenceOptions {
  /**
   * Refuse a Redis that keeps its keys only in memory (neither AOF nor RDB snapshots), or whose
   * persistence cannot be read (`CONFIG` disabled): the store's calls fail, so the receiver answers
   * 503 `store_unavailable` instead of accepting events a restart would forget. Default false: warn once.
   */
  requirePersistence?: boolean;
  /** Where the one warning (or the one "cannot check" line) goes. Default: `process.emitWarning`. */
  logger?: Logger;
}

/** What the check found on the server, or on every master of a Cluster. */
type PersistenceFinding =
  | { readonly kind: 'persistent' }
  | { readonly kind: 'volatile'; readonly nodes: readonly string[] }
  | { readonly kind: 'unknown'; readonly why: string };

/** A store's view of the check: nothing to await on the hot path once it has run. */
interface PersistenceGate {
  /** `undefined` when the store may go on now; a promise while a required check runs; throws when refused. */
  before(): undefined | Promise<void>;
  /** Resolves once the check ran (rejects when `requirePersistence` refuses the server, or it cannot be reached). */
  ready(): Promise<void>;
}

/** A lazily connecting ioredis client (`lazyConnect`) is left alone until the store's first call. */
function connectsLazily(client: RedisClientLike): boolean {
  return (client as { status?: unknown }).status === 'wait';
}

interface ClientState {
  finding?: PersistenceFinding;
  findingUntil: number;
  running?: Promise<PersistenceFinding | undefined>;
  retryAt: number;
  listening: boolean;
}

const states = new WeakMap<object, ClientState>();
// Said once per server (or set of masters) per process, however many clients and stores reach it.
const told = new Set<string>();
const checkTimeoutMs = 5_000;
// A server found volatile is read again now and then, so a `CONFIG SET appendonly yes` is seen without a restart.
const volatileRecheckMs = 60_000;
const transientRetryMs = 1_000;

/**
 * Checks once per client connection (again after a reconnect) whether Redis keeps its keys across a
 * restart: `CONFIG GET appendonly` and `CONFIG GET save`, on every master of a Cluster. Warns once per
 * client when neither AOF nor snapshots are on; says once when `CONFIG` is disabled (managed services)
 * and goes on; refuses either with `requirePersistence`.
 */
export function persistenceGate(client: RedisClientLike, options: RedisPersistenceOptions = {}): PersistenceGate {
  if (options.requirePersistence !== undefined && typeof options.requirePersistence !== 'boolean') {
    throw new PixhookConfigError(`pixhook: \`requirePersistence\` must be true or false, got ${typeof options.requirePersistence}.`);
  }
  const required = options.requirePersistence === true;
  const report = reporter(options.logger);
  const state = stateOf(client);

  // Checked when the store is made, so the warning comes at start-up, not with the first webhook.
  if (!connectsLazily(client)) void check(client, state, report);

  const judge = (finding: PersistenceFinding | undefined): void => {
    if (finding === undefined) throw new RedisUnavailableError('could not read the Redis persistence settings yet');
    if (required && finding.kind !== 'persistent') throw refusal(finding);
  };

  return {
    before() {
      if (state.finding !== undefined && Date.now() < state.findingUntil) {
        if (required && state.finding.kind !== 'persistent') throw refusal(state.finding);
        return undefined;
      }
      const pending = check(client, state, report);
      if (!required) {
        // A stale finding still holds while the new check runs; an unrequired check never holds a call back.
        return undefined;
      }
      return pending.then(judge);
    },
    async ready() {
      const fresh = state.finding !== undefined && Date.now() < state.findingUntil;
      const finding = fresh ? state.finding : await check(client, state, report, true);
      if (required || finding === undefined) judge(finding);
    },
  };
}

function stateOf(client: RedisClientLike): ClientState {
  let state = states.get(client);
  if (!state) {
    state = { findingUntil: 0, retryAt: 0, listening: false };
    states.set(client, state);
  }
  return state;
}

type Report = (level: 'warn' | 'info', fields: object, message: string) => void;

function reporter(logger: Logger | undefined): Report {
  if (logger !== undefined) {
    const log = guardLogger(logger);
    return (level, fields, message) => log[level](fields, message);
  }
  return (level, _fields, message) => {
    if (level === 'warn') process.emitWarning(message, { code: 'PIXHOOK_REDIS_NOT_PERSISTENT' });
  };
}

function check(client: RedisClientLike, state: ClientState, report: Report, force = false): Promise<PersistenceFinding | undefined> {
  if (state.running) return state.running;
  if (!force && Date.now() < state.retryAt) return Promise.resolve(state.finding);
  listenForReconnects(client, state);
  const running = withTimeout(inspect(client), checkTimeoutMs, 'redis persistence check').then(
    (finding) => {
      state.finding = finding;
      state.findingUntil = finding.kind === 'volatile' ? Date.now() + volatileRecheckMs : Number.POSITIVE_INFINITY;
      tell(finding, report);
      return finding;
    },
    // Not reachable now: no finding is kept, and the next call (at most once a second) tries again.
    () => {
      state.retryAt = Date.now() + transientRetryMs;
      return state.finding;
    },
  );
  state.running = running;
  void running.finally(() => {
    if (state.running === running) state.running = undefined;
  });
  return running;
}

// A new connection may be another server (a failover, a restart with other settings): check it again.
function listenForReconnects(client: RedisClientLike, state: ClientState): void {
  if (state.listening) return;
  const emitter = client as unknown as { on?: (event: string, listener: () => void) => unknown };
  if (typeof emitter.on !== 'function') return;
  state.listening = true;
  emitter.on('ready', () => {
    state.findingUntil = 0;
    state.retryAt = 0;
  });
}

function tell(finding: PersistenceFinding, report: Report): void {
  if (finding.kind === 'persistent') return;
  const about = finding.kind === 'volatile' ? `volatile ${finding.nodes.join(',')}` : `unknown ${finding.why}`;
  if (told.has(about)) return;
  told.add(about);
  if (finding.kind === 'volatile') {
    report(
      'warn',
      { redis: finding.nodes },
      `pixhook: Redis at ${finding.nodes.join(', ')} keeps its keys only in memory (appendonly no, save ""): a restart forgets which events were handled, and their retries run again. Turn on AOF (\`appendonly yes\`) or RDB snapshots (\`save 60 1000\`), or pass \`requirePersistence: true\` to refuse such a server.`,
    );
  } else {
    report(
      'info',
      { why: finding.why },
      `pixhook: cannot check whether Redis keeps its keys across a restart (${finding.why}); make sure AOF or snapshots are on.`,
    );
  }
}

function refusal(finding: PersistenceFinding): PixhookConfigError {
  if (finding.kind === 'volatile') {
    return new PixhookConfigError(
      `pixhook: \`requirePersistence\` refuses Redis at ${finding.nodes.join(', ')}: it keeps its keys only in memory (appendonly no, save ""). Turn on AOF (\`appendonly yes\`) or RDB snapshots (\`save 60 1000\`).`,
    );
  }
  return new PixhookConfigError(
    `pixhook: \`requirePersistence\` cannot be met: pixhook cannot check this Redis's persistence (${finding.kind === 'unknown' ? finding.why : 'unknown'}). Check your provider's persistence setting, then drop \`requirePersistence\`.`,
  );
}

interface ConfigReader {
  label: string;
  get(parameter: string): Promise<unknown>;
}

async function inspect(client: RedisClientLike): Promise<PersistenceFinding> {
  const readers = await configReaders(client);
  if (typeof readers === 'string') return { kind: 'unknown', why: readers };
  const findings = await Promise.all(readers.map((reader) => inspectNode(reader)));
  const volatile = readers.filter((_, i) => findings[i]?.kind === 'volatile').map((reader) => reader.label);
  if (volatile.length > 0) return { kind: 'volatile', nodes: volatile };
  const unknown = findings.find((finding) => finding.kind === 'unknown');
  return unknown ?? { kind: 'persistent' };
}

async function inspectNode(reader: ConfigReader): Promise<PersistenceFinding> {
  let appendonly: string | undefined;
  let save: string | undefined;
  try {
    [appendonly, save] = await Promise.all([reader.get('appendonly').then(configValue), reader.get('save').then(configValue)]);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/unknown command|NOPERM|no permissions?|not allowed|disabled/i.test(message)) {
      return { kind: 'unknown', why: `CONFIG is not allowed on ${reader.label}: ${message.slice(0, 120)}` };
    }
    throw error;
  }
  if (appendonly === undefined || save === undefined)
    return { kind: 'unknown', why: `${reader.label} does not report appendonly and save` };
  if (appendonly.toLowerCase() === 'yes' || save.trim() !== '') return { kind: 'persistent' };
  return { kind: 'volatile', nodes: [reader.label] };
}

// `CONFIG GET name` answers [name, value] (a map with RESP3); an unknown name answers nothing.
function configValue(reply: unknown): string | undefined {
  if (Array.isArray(reply)) return reply.length >= 2 ? replyText(reply[1]) : undefined;
  if (reply instanceof Map) return reply.size > 0 ? replyText([...reply.values()][0]) : undefined;
  if (typeof reply === 'object' && reply !== null) {
    const values = Object.values(reply);
    return values.length > 0 ? replyText(values[0]) : undefined;
  }
  return undefined;
}

interface IoredisNode {
  call(command: string, ...args: string[]): Promise<unknown>;
  options?: { host?: string; port?: number };
}

/** Who to ask: the server, or every master of a Cluster; a string says why nobody can be asked. */
async function configReaders(client: RedisClientLike): Promise<ConfigReader[] | string> {
  const shape = client as unknown as Record<string, unknown>;
  if (shape['isCluster'] === true && typeof shape['nodes'] === 'function') {
    await clusterReady(shape);
    const masters = (shape['nodes'] as (role: string) => IoredisNode[]).call(client, 'master');
    if (masters.length === 0) throw new RedisUnavailableError('the Redis Cluster has no master connected yet');
    return masters.map(ioredisReader);
  }
  if (typeof shape['call'] === 'function') return [ioredisReader(client as unknown as IoredisNode)];
  if (Array.isArray(shape['masters'])) {
    const masters = shape['masters'] as { client?: { sendCommand?: unknown }; host?: string; port?: number }[];
    const readers = masters
      .filter((m) => typeof m.client?.sendCommand === 'function')
      .map((m) => nodeRedisReader(m.client!, `${m.host ?? '?'}:${m.port ?? '?'}`));
    return readers.length > 0 ? readers : 'the node-redis cluster has no master connected';
  }
  if (typeof shape['sendCommand'] === 'function') {
    const socket = (shape['options'] as { socket?: { host?: string; port?: number } } | undefined)?.socket;
    return [nodeRedisReader(client as unknown as { sendCommand: unknown }, `${socket?.host ?? 'localhost'}:${socket?.port ?? 6379}`)];
  }
  return 'the client has no way to send CONFIG GET';
}

function ioredisReader(node: IoredisNode): ConfigReader {
  return {
    label: `${node.options?.host ?? 'localhost'}:${node.options?.port ?? 6379}`,
    get: (parameter) => node.call('CONFIG', 'GET', parameter),
  };
}

function nodeRedisReader(client: { sendCommand?: unknown }, label: string): ConfigReader {
  const send = client.sendCommand as (args: string[]) => Promise<unknown>;
  return { label, get: (parameter) => send.call(client, ['CONFIG', 'GET', parameter]) };
}

// One check runs at a time per client, so at most one listener waits here; it leaves with the check's time limit.
function clusterReady(cluster: Record<string, unknown>): Promise<void> {
  if (cluster['status'] === 'ready') return Promise.resolve();
  const emitter = cluster as unknown as {
    once(event: string, listener: () => void): unknown;
    off(event: string, listener: () => void): unknown;
  };
  return new Promise((resolve, reject) => {
    const onReady = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      emitter.off('ready', onReady);
      reject(new RedisUnavailableError('the Redis Cluster is not connected'));
    }, checkTimeoutMs);
    timer.unref();
    emitter.once('ready', onReady);
  });
}
