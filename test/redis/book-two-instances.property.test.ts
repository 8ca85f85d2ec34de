import fc from 'fast-check';
import { describe, it } from 'vitest';
import { redisDedupeStore, redisPaymentBook } from '../../src/redis/index.js';
import { registeredOrderLeases, registerOrderLeases, type OrderLeases } from '../../src/shared/order-lease.js';
import {
  deliverToMany,
  deliverToTwo,
  deliveries,
  richDeliveries,
  type ForgetfulInstance,
  type Instance,
} from '../book/two-instance-permutations.js';
import { redisTargetNames, useRedisTargets } from '../helpers/redis-targets.js';

const targets = useRedisTargets();

// Real I/O: each run is dozens of round trips to a real Redis (a 3-master Cluster for one case), two or three
// receivers, and its duration grows with the machine's load (the Cluster case: about 9 s at load 8, past 20 s at
// load 15). The bound is for that work only, not for a race (the retries of an event in flight are bounded by time in
// the helper).
const ioTimeoutMs = 120_000;

describe.each(redisTargetNames)("the payment book on Redis (%s), two receivers, every order of a charge's events", (name) => {
  it(
    'ends refunded, handles each forward fact once, never moves backwards (claim and book in one script)',
    async () => {
      const clients = [targets(name).client, targets(name).connect()];
      const instances = clients.map((client): Instance => ({
        store: redisDedupeStore({ client, prefix: 'perm:{book}:dedupe:', quarantine: false }),
        book: redisPaymentBook({ client, prefix: 'perm:{book}:' }),
      })) as [Instance, Instance];
      await fc.assert(
        fc.asyncProperty(deliveries, (list) => deliverToTwo(list, instances)),
        { numRuns: 25 },
      );
    },
    ioTimeoutMs,
  );

  it(
    'the same with the claim and the book in two steps (a store whose keys are elsewhere)',
    async () => {
      const clients = [targets(name).client, targets(name).connect()];
      const instances = clients.map((client): Instance => ({
        store: redisDedupeStore({ client, prefix: 'perm2:dedupe:', quarantine: false }),
        book: redisPaymentBook({ client, prefix: 'perm2:{book}:' }),
      })) as [Instance, Instance];
      await fc.assert(
        fc.asyncProperty(deliveries, (list) => deliverToTwo(list, instances)),
        { numRuns: 15 },
      );
    },
    ioTimeoutMs,
  );

  it.each([2, 3])(
    '%i instances, every shape, done-marks expiring at random: each money fact runs once or is held once (claim and book read in one script)',
    async (count) => {
      let stores = 0;
      // The book judges under the order lease and applies when the handlers succeeded (issue 36): instances sharing a
      // book share the order leases, so every store here uses the first one's (a forgotten store's keys are elsewhere).
      let leases: OrderLeases | undefined;
      const instances = Array.from({ length: count }, (_, i): ForgetfulInstance => {
        const client = i === 0 ? targets(name).client : targets(name).connect();
        const fresh = () => {
          const made = redisDedupeStore({ client, prefix: `rich:{book}:d${++stores}:`, quarantine: false });
          leases ??= registeredOrderLeases(made);
          return registerOrderLeases(made, leases!);
        };
        let store = fresh();
        return { book: redisPaymentBook({ client, prefix: 'rich:{book}:' }), store: () => store, forget: () => (store = fresh()) };
      });
      await fc.assert(
        fc.asyncProperty(richDeliveries(count), (list) => deliverToMany(list, instances)),
        { numRuns: 12 },
      );
    },
    ioTimeoutMs,
  );
});
