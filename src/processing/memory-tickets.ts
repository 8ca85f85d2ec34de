/**
 * In-process ticket queues: per resource, the owners waiting for its order lease in arrival order (a `Map`
 * keeps insertion order). A ticket lives `ticketTtlMs` from its waiter's last ask; one not renewed in time (its
 * waiter is gone) is dropped when the queue is next looked at, so it never holds up the waiters behind it.
 */
export function ticketQueues(now: () => number) {
  const queues = new Map<string, Map<string, number>>();

  /** The resource's live queue (expired tickets dropped), or undefined when nobody waits. */
  const live = (resource: string): Map<string, number> | undefined => {
    const queue = queues.get(resource);
    if (queue === undefined) return undefined;
    const at = now();
    for (const [owner, expiresAt] of queue) if (expiresAt <= at) queue.delete(owner);
    if (queue.size > 0) return queue;
    queues.delete(resource);
    return undefined;
  };

  return {
    /** True when nobody waits, or `owner` holds the first live ticket. */
    first(resource: string, owner: string): boolean {
      const queue = live(resource);
      return queue === undefined || queue.keys().next().value === owner;
    },
    /** Queues `owner` (or renews its ticket where it stands) for `ticketTtlMs`. */
    wait(resource: string, owner: string, ticketTtlMs: number): void {
      let queue = queues.get(resource);
      if (queue === undefined) queues.set(resource, (queue = new Map()));
      queue.set(owner, now() + ticketTtlMs);
    },
    withdraw(resource: string, owner: string): void {
      const queue = queues.get(resource);
      if (queue === undefined || !queue.delete(owner) || queue.size > 0) return;
      queues.delete(resource);
    },
  };
}
