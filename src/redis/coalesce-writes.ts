import type { Cluster, Redis } from 'ioredis';

/** The part of a socket this needs: its `write`, and Node's `cork`/`uncork`. */
interface CorkableStream {
  write: (...args: never[]) => boolean;
  cork(): void;
  uncork(): void;
}

// Sockets already coalescing (ioredis emits `connect` once per socket, but a listener added twice must not wrap twice).
const coalescing = new WeakSet<object>();

/** After the current turn's I/O callbacks; a plain timer where `setImmediate` is absent. */
const afterIo: (run: () => void) => void =
  typeof setImmediate === 'function' ? (run) => void setImmediate(run) : (run) => void setTimeout(run, 0);

/**
 * Makes the commands sent on one socket in one turn of the event loop (its I/O callbacks, up to the `setImmediate`
 * phase) leave in one system call: the socket is corked at the turn's first write and uncorked after the turn's
 * I/O. A durable receiver's adds from several requests, and a worker's finishes of the jobs one lease batch let
 * run, each went in a write of their own: on a VM a socket write costs tens of µs, more than the command's
 * JavaScript. Nothing else changes: the commands, their order, their answers, ioredis's queue and its retries are
 * the same; a command waits at most until the turn's I/O callbacks have run. Only for the clients pixhook opens
 * itself (a given client is the application's), and only on a single server: a Cluster's node connections are
 * ioredis's own.
 */
export function coalesceWrites(client: Redis | Cluster): void {
  if ((client as Partial<Cluster>).isCluster === true) return;
  const redis = client as Redis;
  // ioredis makes a new socket per connection (and per reconnection) and emits `connect` once it is up.
  redis.on('connect', () => coalesceStream(redis.stream as unknown as CorkableStream | undefined));
}

/** Corks `stream` at the first write of a turn and uncorks it after that turn's I/O (exported for tests). */
export function coalesceStream(stream: CorkableStream | undefined): void {
  if (stream === undefined || coalescing.has(stream)) return;
  coalescing.add(stream);
  const write = stream.write;
  let corked = false;
  const uncork = () => {
    corked = false;
    stream.uncork();
  };
  stream.write = function (this: CorkableStream, ...args: never[]): boolean {
    if (!corked) {
      corked = true;
      stream.cork();
      afterIo(uncork);
    }
    return write.apply(this, args);
  };
}
