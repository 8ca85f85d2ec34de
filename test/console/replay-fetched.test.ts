// Issue 36 §4 / issue 38: a Mercado Pago, Pagar.me or Asaas (`apiKey`) delivery is only an id; the state the
// handlers saw came from the PSP's API. Its journal entry keeps that confirmed state (`confirmed`), so a replay
// (console, bulk, CLI) runs it through the one door without credentials. Before: every such replay ended
// `400 payload_invalid` (the hint body read with the body reader).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bulkReplay } from '../../src/console/bulk-replay.js';
import { replayBody } from '../../src/console/replay-body.js';
import { createProcessing, memoryDedupeStore, memoryJournal, memoryPaymentBook, type JournalEntry } from '../../src/index.js';
import { createPspReceiver } from '../../src/psp/index.js';
import { startConfirmationServer, type ConfirmationServer } from '../psp/confirmation-server.js';
import { mercadoPago, mpAccessToken, mpSecret, pagarme, pagarmeSecretKey, pagarmeUrlSecret, type PspProfile } from '../psp/psp-profiles.js';

const asaasApiKey = 'asaas-api-key-$aact_secret';
const asaasWithKey: PspProfile = {
  psp: 'asaas',
  credential: { header: 'access_token', value: asaasApiKey },
  options: (apiBaseUrl) => ({ psp: 'asaas', token: 'asaas-webhook-token-123', apiKey: asaasApiKey, apiBaseUrl }),
  async delivery(state, server) {
    server!.set(`/v3/payments/${state.id}`, { object: 'payment', id: state.id, value: state.amountInCents / 100, status: 'RECEIVED' });
    const body = JSON.stringify({
      id: `evt_${state.id}`,
      event: 'PAYMENT_RECEIVED',
      dateCreated: '2026-11-27 10:00:00',
      // The body says pending: the fetched payment decides.
      payment: { object: 'payment', id: state.id, value: state.amountInCents / 100, status: 'PENDING' },
    });
    return { path: '', headers: { 'content-type': 'application/json', 'asaas-access-token': 'asaas-webhook-token-123' }, body };
  },
  unsigned: (request) => request,
  forged: (request) => request,
};

const cases = [
  { profile: mercadoPago, secrets: [mpAccessToken, mpSecret] },
  { profile: pagarme, secrets: [pagarmeSecretKey, pagarmeUrlSecret] },
  { profile: asaasWithKey, secrets: [asaasApiKey, 'asaas-webhook-token-123'] },
];

const servers = new Map<string, ConfirmationServer>();
beforeAll(async () => {
  for (const { profile } of cases) servers.set(profile.psp, await startConfirmationServer(profile.credential!));
});
afterAll(async () => {
  for (const server of servers.values()) await server.close();
});

async function setup(profile: PspProfile, id: string) {
  const server = servers.get(profile.psp)!;
  const journal = memoryJournal();
  const book = memoryPaymentBook();
  await book.expect({ id, amountInCents: 2590 });
  const ran: string[] = [];
  let failing = false;
  const handlers = (processing: ReturnType<typeof createProcessing>) =>
    processing.on('transaction_paid', (event) => {
      if (failing) throw new Error('the ledger is down');
      ran.push(`${event.provider}:${event.transaction.id}:${event.source}`);
    });
  const processing = handlers(createProcessing({ journal, book }));
  const receiver = createPspReceiver({ ...profile.options(server.url), processing } as Parameters<typeof createPspReceiver>[0]);
  const deliver = async () => {
    const request = await profile.delivery({ id, status: 'paid', amountInCents: 2590 }, server);
    return receiver.receive({ method: 'POST', headers: request.headers, body: request.body, url: `/hook${request.path}` });
  };
  const replay = (entry: JournalEntry, through = processing) =>
    replayBody({ bytes: new TextEncoder().encode(entry.body), processing: through, journal, replayOf: entry.id, entry });
  /** A processing whose dedupe store never saw the delivery (its done mark expired; `--force`), on the same book. */
  const forgetful = () => handlers(createProcessing({ journal, book, store: memoryDedupeStore() }));
  const only = async () => (await journal.list({ limit: 10 })).find((e) => e.replayOf === undefined)!;
  return { server, journal, book, ran, receiver, deliver, replay, forgetful, only, fail: (on: boolean) => void (failing = on) };
}

describe.each(cases)('replaying a journaled $profile.psp delivery (its body only an id)', ({ profile, secrets }) => {
  it('the entry keeps the confirmed state, never a credential; an applied payment replays duplicate, with or without its done mark', async () => {
    const t = await setup(profile, `ch_${profile.psp}_applied`);
    expect((await t.deliver()).status).toBe(200);
    await t.receiver.drain();
    expect(t.ran).toEqual([`${profile.psp}:ch_${profile.psp}_applied:webhook`]);
    const entry = await t.only();
    expect(entry).toMatchObject({ profile: profile.psp, status: 200 });
    expect(entry.confirmed).toHaveLength(1);
    expect(entry.confirmed![0]!.record['id']).toBe(`ch_${profile.psp}_applied`);
    for (const secret of secrets) expect(JSON.stringify(entry)).not.toContain(secret);

    const fetches = t.server.seen.length;
    const again = await t.replay(entry);
    expect([again.status, again.reason, again.items?.map((item) => item.reason)]).toEqual([200, 'duplicate', ['duplicate']]);
    // The dedupe mark expired (a store that never saw it): the book still answers duplicate, nothing runs twice.
    const forced = await t.replay(entry, t.forgetful());
    expect([forced.status, forced.reason]).toEqual([200, 'duplicate']);
    expect(t.ran).toHaveLength(1);
    // No credentials were needed: the PSP's API was not called again.
    expect(t.server.seen.length).toBe(fetches);
    await t.receiver.close();
  });

  it('an unfinished delivery (its handler failed) runs once on replay, bulk or single; then duplicate', async () => {
    const t = await setup(profile, `ch_${profile.psp}_unfinished`);
    const since = new Date(Date.now() - 1000).toISOString();
    t.fail(true);
    expect((await t.deliver()).reason).toBe('handler_failed');
    await t.receiver.drain();
    expect(t.ran).toEqual([]);
    const entry = await t.only();
    t.fail(false);
    const result = await bulkReplay({ journal: t.journal, processing: undefined, filter: { since }, dryRun: true });
    expect(result.matched).toBe(1);
    const replayed = await t.replay(entry);
    expect([replayed.status, replayed.reason, replayed.profile]).toEqual([200, undefined, profile.psp]);
    expect(t.ran).toEqual([`${profile.psp}:ch_${profile.psp}_unfinished:replay`]);
    expect((await t.replay(entry)).reason).toBe('duplicate');
    expect((await t.replay(entry, t.forgetful())).reason).toBe('duplicate');
    expect(t.ran).toHaveLength(1);
    await t.receiver.close();
  });

  it('an entry journaled before its confirmed state was kept answers 422 confirmation_not_journaled, and nothing runs', async () => {
    const t = await setup(profile, `ch_${profile.psp}_old`);
    t.fail(true);
    await t.deliver();
    await t.receiver.drain();
    t.fail(false);
    const { confirmed: _confirmed, ...old } = await t.only();
    const replayed = await t.replay(old);
    if (profile.psp === 'asaas') {
      // An old Asaas entry still reads its own (token-authenticated) body, as before.
      expect(replayed.status).toBe(200);
      expect(t.ran).toHaveLength(1);
    } else {
      expect([replayed.status, replayed.reason]).toEqual([422, 'confirmation_not_journaled']);
      expect(t.ran).toEqual([]);
    }
    // An altered record that no longer reads is not the state the handlers saw: refused the same way.
    const altered = await t.replay({ ...old, confirmed: [{ record: { id: 'x' } }] });
    expect(altered.reason).toBe('confirmation_not_journaled');
    await t.receiver.close();
  });
});
