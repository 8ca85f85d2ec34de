import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { postgresInbox, postgresPaymentBook, type PostgresInbox } from '../../src/postgres/index.js';
import { memoryDedupeStore } from '../../src/index.js';
import { memoryOrderLeases } from '../../src/processing/memory-order-leases.js';
import { registerOrderLeases } from '../../src/shared/order-lease.js';
import {
  deliverToMany,
  deliverToTwo,
  deliveries,
  richDeliveries,
  type ForgetfulInstance,
  type Instance,
} from '../book/two-instance-permutations.js';
import { freshTable, usePostgres } from './use-postgres.js';

const db = usePostgres();
const names = { inbox: freshTable(), book: freshTable('book') };
const pools: pg.Pool[] = [];
const inboxes: PostgresInbox[] = [];
let instances: [Instance, Instance];

beforeAll(async () => {
  pools.push(db().pool, new pg.Pool({ connectionString: db().server.url, max: 20 }));
  instances = pools.map((pool): Instance => {
    const inbox = postgresInbox({ pool, table: names.inbox });
    inboxes.push(inbox);
    return {
      store: inbox.store,
      book: postgresPaymentBook({ db: pool, inbox, table: names.book }),
      // The handlers write inside the book's transaction: the fact and its book entry commit together.
      wrap: (handler) =>
        inbox.transactional(async (event, { tx }) => {
          await tx.query('SELECT 1');
          await handler(event);
        }),
    };
  }) as [Instance, Instance];
  await inboxes[0]!.migrate();
  await (instances[0].book as ReturnType<typeof postgresPaymentBook>).migrate();
});
afterAll(async () => {
  await Promise.all(inboxes.map((inbox) => inbox.close()));
  await pools[1]?.end();
});

describe("the payment book on Postgres, two receivers (two pools), every order of a charge's events", () => {
  it('ends refunded, handles each forward fact once, never moves backwards (the book in the inbox transaction)', async () => {
    await fc.assert(
      fc.asyncProperty(deliveries, (list) => deliverToTwo(list, instances)),
      { numRuns: 25 },
    );
  });

  it('2 instances, every shape, done-marks expiring at random: each money fact runs once or is held once, never both', async () => {
    // The book judges under the order lease and applies when the handlers succeeded (issue 36): instances sharing a
    // book share the order leases (a Redis or Postgres store keeps them; these in-process stores are given one set).
    const leases = memoryOrderLeases();
    const fresh = () => registerOrderLeases(memoryDedupeStore(), leases);
    const instances = pools.map((pool): ForgetfulInstance => {
      let store = fresh();
      return {
        book: postgresPaymentBook({ db: pool, table: names.book }),
        store: () => store,
        forget: () => (store = fresh()),
      };
    });
    await fc.assert(
      fc.asyncProperty(richDeliveries(2), (list) => deliverToMany(list, instances)),
      { numRuns: 12 },
    );
  });
});
