import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createNodeHandler } from '../../adapters/node/index.js';
import { createReceiver, type HandlerContext } from '../../src/index.js';
import { postgresInbox, type IsolationLevel, type PostgresInbox } from '../../src/postgres/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';
import { freshTable, usePostgres } from './use-postgres.js';

// Issue 20: a retry of a finished key is `duplicate` on Postgres however many arrive at once.
const db = usePostgres();
const secret = 'whsec_pg_finished_key_retries';

function paidDelivery(id: string) {
  const body = bytesOf({ event: 'transaction_paid', timestamp: '2026-11-23T10:00:00Z', data: { id, status: 'paid', amountInCents: 1500 } });
  return { body, signature: signBytes(body, secret) };
}

interface Instance {
  url: string;
  inbox: PostgresInbox;
  close(): Promise<void>;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

/** One receiver instance: its own pool, its own inbox on the shared table, a real HTTP server with the node adapter. */
async function startInstance(
  table: string,
  handler: (context: HandlerContext) => Promise<void> | void,
  options: { transactional?: IsolationLevel; memoryStore?: boolean } = {},
): Promise<Instance> {
  const pool = new pg.Pool({ connectionString: db().server.url, max: 10 });
  pool.on('error', () => {});
  const inbox = postgresInbox({ pool, table });
  await inbox.migrate();
  const receiver = createReceiver(options.memoryStore ? { secret } : { secret, store: inbox.store });
  receiver.on(
    'transaction_paid',
    options.transactional
      ? inbox.transactional(async (_event, context) => handler(context), { isolation: options.transactional })
      : async (_event, context) => handler(context),
  );
  const server: Server = createServer(createNodeHandler(receiver));
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const instance: Instance = {
    url: `http://127.0.0.1:${port}/webhooks/pix`,
    inbox,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await inbox.close();
      await pool.end();
    },
  };
  cleanups.push(() => instance.close());
  return instance;
}

/** One POST, as the gateway sends it: `duplicate`, `in_flight`, `handled` (200 with no reason) or another reason. */
async function send(url: string, delivery: { body: Uint8Array<ArrayBuffer>; signature: string }): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-signature': delivery.signature },
    body: delivery.body,
  });
  const answer = (await res.json()) as { ok?: boolean; reason?: string; error?: string };
  if (res.status === 200) return answer.reason ?? 'handled';
  return `${res.status} ${answer.error ?? '?'}`;
}

function tally(results: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of results) counts[r] = (counts[r] ?? 0) + 1;
  return counts;
}

/** A gate the handler waits on, so "in flight" is a fact of the test and not a matter of timing. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe.each<[string, { transactional?: IsolationLevel }]>([
  ['store: inbox.store, plain handler', {}],
  ['store: inbox.store, transactional handler (read committed)', { transactional: 'read committed' }],
  ['store: inbox.store, transactional handler (serializable)', { transactional: 'serializable' }],
])('postgres %s: retries of a finished key over real HTTP', (_name, options) => {
  it('10 concurrent retries of an event finished earlier are all 200 duplicate', async () => {
    let runs = 0;
    const instance = await startInstance(freshTable(), () => void runs++, options);
    const delivery = paidDelivery('tx_pg_retry_10');
    expect(await send(instance.url, delivery)).toBe('handled');
    const retries = await Promise.all(Array.from({ length: 10 }, () => send(instance.url, delivery)));
    expect(tally(retries)).toEqual({ duplicate: 10 });
    expect(runs).toBe(1);
    expect(instance.inbox.store.held).toBe(0);
  });

  it('200 concurrent copies of a finished event across 2 instances (separate pools) are all 200 duplicate; the handler ran once', async () => {
    const table = freshTable();
    let runs = 0;
    const instances = [await startInstance(table, () => void runs++, options), await startInstance(table, () => void runs++, options)];
    const delivery = paidDelivery('tx_pg_retry_200');
    expect(await send(instances[0]!.url, delivery)).toBe('handled');
    const copies = await Promise.all(Array.from({ length: 200 }, (_, i) => send(instances[i % 2]!.url, delivery)));
    expect(tally(copies)).toEqual({ duplicate: 200 });
    expect(runs).toBe(1);
  }, 30_000);
});

describe('postgres store: 200 concurrent copies of a NEW event across 2 instances', () => {
  it('while the handler runs the others are 503 in_flight; once it finished, all 199 concurrent retries are duplicate', async () => {
    const table = freshTable();
    const running = gate();
    const release = gate();
    let runs = 0;
    const handler = async () => {
      runs++;
      running.open();
      await release.opened;
    };
    const instances = [await startInstance(table, handler), await startInstance(table, handler)];
    const delivery = paidDelivery('tx_pg_new_gated');
    const first = Array.from({ length: 200 }, (_, i) => send(instances[i % 2]!.url, delivery));
    await running.opened;
    // Every copy but the one running is answered while it runs: a key in flight is `in_flight`.
    const answers: string[] = [];
    let pending = first.length;
    await new Promise<void>((resolve) => {
      for (const p of first) {
        void p.then((answer) => {
          answers.push(answer);
          if (--pending === 1) resolve();
        });
      }
    });
    expect(tally(answers)).toEqual({ '503 in_flight': 199 });
    release.open();
    await Promise.all(first);
    expect(runs).toBe(1);
    // The sender's second attempts, all at once: the key is finished, so every one is a duplicate.
    const retries = await Promise.all(Array.from({ length: 199 }, (_, i) => send(instances[i % 2]!.url, delivery)));
    expect(tally(retries)).toEqual({ duplicate: 199 });
    expect(runs).toBe(1);
  }, 30_000);

  it('200 senders with 5 attempts and backoff: handled once, nobody exhausts its attempts', async () => {
    const table = freshTable();
    let runs = 0;
    const ledger = freshTable('ledger');
    await db().pool.query(`CREATE TABLE ${ledger} (event_key text NOT NULL)`);
    const handler = async (context: HandlerContext) => {
      runs++;
      await db().pool.query(`INSERT INTO ${ledger} (event_key) VALUES ($1)`, [context.key]);
    };
    const instances = [await startInstance(table, handler), await startInstance(table, handler)];
    const delivery = paidDelivery('tx_pg_new_senders');
    const backoffMs = [50, 100, 200, 400];
    const senders = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const attempts: string[] = [];
        for (let attempt = 0; attempt < 5; attempt++) {
          const answer = await send(instances[(i + attempt) % 2]!.url, delivery);
          attempts.push(answer);
          if (!answer.startsWith('5')) break;
          if (attempt < 4) await new Promise((r) => setTimeout(r, backoffMs[attempt]));
        }
        return attempts;
      }),
    );
    const firstAttempts = tally(senders.map((a) => a[0]!));
    const finals = tally(senders.map((a) => a.at(-1)!));
    const exhausted = senders.filter((a) => a.length === 5 && a[4]!.startsWith('5')).length;
    console.info(
      `200 senders, new event: first attempts ${JSON.stringify(firstAttempts)}, final ${JSON.stringify(finals)}, exhausted ${exhausted}, runs ${runs}`,
    );
    expect(exhausted).toBe(0);
    expect(finals['handled']).toBe(1);
    expect(finals['duplicate']).toBe(199);
    expect(runs).toBe(1);
    expect((await db().pool.query(`SELECT count(*)::int AS n FROM ${ledger}`)).rows[0].n).toBe(1);
  }, 60_000);
});
