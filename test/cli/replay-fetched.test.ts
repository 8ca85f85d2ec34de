import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessing, type DeliveryJournal, type PaymentBook, type Receiver } from '../../src/index.js';
import { postgresInbox, postgresJournal, postgresPaymentBook } from '../../src/postgres/index.js';
import { createPspReceiver } from '../../src/psp/index.js';
import { redisDedupeStore, redisJournal, redisPaymentBook } from '../../src/redis/index.js';
import type { DedupeStore } from '../../src/index.js';
import { jsonLines, runCli } from '../helpers/cli-process.js';
import { runsHandlersModule } from '../helpers/handlers-module.js';
import { useRedisTarget } from '../helpers/redis-targets.js';
import { useTempDirs } from '../helpers/temp-dirs.js';
import { usePostgres } from '../postgres/use-postgres.js';
import { startConfirmationServer, type ConfirmationServer } from '../psp/confirmation-server.js';
import { mercadoPago, pagarme, type PspProfile } from '../psp/psp-profiles.js';

// Issue 36 §4 / issue 38: `pixhook replay` of Mercado Pago and Pagar.me deliveries (their bodies only an id, the
// state fetched with credentials the CLI does not have) runs through the one door from the confirmed state the
// journal kept: an applied payment is a duplicate (its done mark expired, or --force: the book still says so),
// an unfinished one runs once. Before: every one ended 400 payload_invalid and nothing ran.
const target = useRedisTarget('single');
const postgres = usePostgres();
const tempDir = useTempDirs('pixhook-replay-fetched-');

const servers = new Map<string, ConfirmationServer>();
beforeAll(async () => {
  for (const profile of [mercadoPago, pagarme]) servers.set(profile.psp, await startConfirmationServer(profile.credential!));
});
afterAll(async () => {
  for (const server of servers.values()) await server.close();
});

/** A handler module that appends each paid charge (provider:id) to RUNS_FILE. */
const handlersModule = () => runsHandlersModule(tempDir(), "e.provider + ':' + e.transaction.id");

/** For each PSP: one charge paid and handled, one whose handler failed (unfinished). Returns the receivers to close. */
async function applyAndFail(backend: { journal: DeliveryJournal; store: DedupeStore; book: PaymentBook }, tag: string) {
  const receivers: Receiver[] = [];
  for (const profile of [mercadoPago, pagarme] as PspProfile[]) {
    const server = servers.get(profile.psp)!;
    const processing = createProcessing({ journal: backend.journal, store: backend.store, book: backend.book }).on(
      'transaction_paid',
      (event) => {
        if (event.transaction.id.endsWith('_unfinished')) throw new Error('the ledger is down');
      },
    );
    const receiver = createPspReceiver({ ...profile.options(server.url), processing } as Parameters<typeof createPspReceiver>[0]);
    receivers.push(receiver);
    for (const [suffix, status] of [
      ['applied', 200],
      ['unfinished', 500],
    ] as const) {
      const id = `ch_${tag}_${profile.psp}_${suffix}`;
      await backend.book.expect({ id, amountInCents: 2590 });
      const request = await profile.delivery({ id, status: 'paid', amountInCents: 2590 }, server);
      const answer = await receiver.receive({ method: 'POST', headers: request.headers, body: request.body, url: `/hook${request.path}` });
      expect([id, answer.status]).toEqual([id, status]);
    }
    await receiver.drain();
  }
  return receivers;
}

const states = (stdout: string) => jsonLines(stdout).map((line) => [line['resourceId'], line['state']]);

describe('pixhook replay of Mercado Pago and Pagar.me deliveries', () => {
  it('Redis: the unfinished payments run once, the applied ones are duplicates, with their done marks expired and with --force', async () => {
    const { client, url } = target();
    const backend = { journal: redisJournal({ client }), store: redisDedupeStore({ client }), book: redisPaymentBook({ client }) };
    const since = new Date(Date.now() - 1000).toISOString();
    const receivers = await applyAndFail(backend, 'redis');
    // The done marks expired (deleted here: deterministic, as dedupeTtlMs passing).
    const marks = await client.keys('pixhook:dedupe:*');
    expect(marks.length).toBeGreaterThanOrEqual(2);
    await client.del(...marks);
    const fetches = [...servers.values()].map((server) => server.seen.length);

    const { handlers, runsFile } = handlersModule();
    const env = { RUNS_FILE: runsFile, PIXHOOK_REDIS_URL: undefined };
    const replay = await runCli(['replay', '--redis', url, '--since', since, '--handlers', handlers], { env });
    expect(replay.stderr).toContain('replayed 4: 2 duplicate, 2 handled; 0 failed');
    expect(states(replay.stdout)).toEqual([
      ['ch_redis_mercado-pago_applied', 'duplicate'],
      ['ch_redis_mercado-pago_unfinished', 'handled'],
      ['ch_redis_pagarme_applied', 'duplicate'],
      ['ch_redis_pagarme_unfinished', 'handled'],
    ]);
    expect(readFileSync(runsFile, 'utf8')).toBe('mercado-pago:ch_redis_mercado-pago_unfinished\npagarme:ch_redis_pagarme_unfinished\n');

    // --force skips the dedupe store, never the book: nothing runs twice.
    const forced = await runCli(['replay', '--redis', url, '--since', since, '--handlers', handlers, '--force'], { env });
    expect(forced.stderr).toContain('replayed 4: 4 duplicate; 0 failed');
    expect(readFileSync(runsFile, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
    // No credentials: the PSPs' APIs were not called by a replay.
    expect([...servers.values()].map((server) => server.seen.length)).toEqual(fetches);
    for (const receiver of receivers) await receiver.close();
  }, 90_000);

  it('Postgres: the same, from the journal and inbox kept in PostgreSQL', async () => {
    const { pool, server } = postgres();
    const inbox = postgresInbox({ pool });
    await inbox.migrate();
    const book = postgresPaymentBook({ db: pool });
    await book.migrate();
    const since = new Date(Date.now() - 1000).toISOString();
    const receivers = await applyAndFail({ journal: postgresJournal({ db: pool }), store: inbox.store, book }, 'pg');
    for (const receiver of receivers) await receiver.close();
    await inbox.close();
    const { handlers, runsFile } = handlersModule();
    const env = { RUNS_FILE: runsFile, PIXHOOK_REDIS_URL: undefined, PIXHOOK_POSTGRES_URL: server.url };
    const forced = await runCli(['replay', '--since', since, '--handlers', handlers, '--force'], { env });
    expect([forced.code, forced.stderr]).toEqual([0, expect.stringContaining('replayed 4: 2 duplicate, 2 handled; 0 failed') as string]);
    expect(readFileSync(runsFile, 'utf8')).toBe('mercado-pago:ch_pg_mercado-pago_unfinished\npagarme:ch_pg_pagarme_unfinished\n');
    const again = await runCli(['replay', '--since', since, '--handlers', handlers, '--force'], { env });
    expect(again.stderr).toContain('replayed 4: 4 duplicate; 0 failed');
    expect(readFileSync(runsFile, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
  }, 90_000);
});
