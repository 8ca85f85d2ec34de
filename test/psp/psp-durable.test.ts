// Issue 38, durable mode for PSP events: the receiver authenticates, reads (and confirms or fetches where the PSP
// needs it), claims and queues; the worker's `processing.runQueued` rebuilds the event from the job — with no PSP
// credentials and no network — and runs the handlers through the book. For every PSP: a payment runs once on the
// worker with its `event.provider`, the PSP's duplicate queues nothing and runs nothing, a wrong amount is held.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessing, memoryPaymentBook, type PixEventOf, type QueuedEvent } from '../../src/index.js';
import { createPspReceiver } from '../../src/psp/index.js';
import { startConfirmationServer, type ConfirmationServer } from './confirmation-server.js';
import { mercadoPago, profiles, type PspDeliveryRequest, type PspProfile } from './psp-profiles.js';

const servers = new Map<string, ConfirmationServer>();

beforeAll(async () => {
  for (const profile of profiles) if (profile.credential) servers.set(profile.psp, await startConfirmationServer(profile.credential));
});

afterAll(async () => {
  for (const server of servers.values()) await server.close();
});

/** A durable PSP receiver whose queue keeps each job as BullMQ stores it (JSON), and a worker's processing with a book. */
function durableSetup(profile: PspProfile) {
  const server = servers.get(profile.psp);
  const jobs: QueuedEvent[] = [];
  const receiver = createPspReceiver({
    ...profile.options(server?.url ?? 'http://127.0.0.1:9'),
    mode: 'durable',
    queue: { enqueue: async (job) => void jobs.push(JSON.parse(JSON.stringify(job)) as QueuedEvent) },
  });
  const book = memoryPaymentBook();
  const ran: PixEventOf<'transaction_paid'>[] = [];
  const worker = createProcessing({ book }).on('transaction_paid', (event) => void ran.push(event));
  const receive = (request: PspDeliveryRequest) =>
    receiver.receive({ method: 'POST', headers: request.headers, body: request.body, url: `/webhooks/${profile.psp}${request.path}` });
  return { server, jobs, receiver, book, ran, worker, receive };
}

describe.each(profiles.map((profile) => [profile.psp, profile] as const))('durable mode, %s', (psp, profile) => {
  it('the payment runs once on the worker, with its provider; the duplicate queues and runs nothing; a wrong amount is held', async () => {
    const setup = durableSetup(profile);
    const id = `ch_durable_${psp.replace('-', '_')}`;
    const wrong = `${id}_short`;
    await setup.book.expect({ id, amountInCents: 2590 });
    await setup.book.expect({ id: wrong, amountInCents: 2590 });

    const paid = await profile.delivery({ id, status: 'paid', amountInCents: 2590 }, setup.server);
    const first = await setup.receive(paid);
    expect([first.status, first.reason]).toEqual([200, undefined]);
    // Queued, not run: intake judged nothing in the book.
    expect(setup.ran).toEqual([]);
    expect((await setup.book.get(id))?.status).toBe('pending');
    expect(setup.jobs).toHaveLength(1);
    const job = setup.jobs[0]!;
    expect(job).toMatchObject({ provider: psp, name: 'transaction_paid', source: 'webhook' });
    // The PSP's record rides once in the job (`raw` is `payload` again), and the worker's event has both.
    expect(JSON.parse(job.body)).not.toHaveProperty('raw');

    await setup.worker.runQueued(job, { attempt: 1, final: false });
    expect(setup.ran).toHaveLength(1);
    expect(setup.ran[0]).toMatchObject({ provider: psp, source: 'webhook', transaction: { id, amountInCents: 2590, status: 'paid' } });
    expect(setup.ran[0]!.raw).toBe(setup.ran[0]!.payload);
    expect((await setup.book.get(id))?.status).toBe('paid');

    // The PSP's duplicate: answered at the door, nothing queued; the same job again (a stalled job) runs nothing.
    const again = await setup.receive(await profile.delivery({ id, status: 'paid', amountInCents: 2590 }, setup.server));
    expect([again.status, again.reason]).toEqual([200, 'duplicate']);
    expect(setup.jobs).toHaveLength(1);
    await setup.worker.runQueued(job, { attempt: 1, final: false });
    expect(setup.ran).toHaveLength(1);

    // A wrong amount: queued, then held on the worker; its handler never runs.
    expect((await setup.receive(await profile.delivery({ id: wrong, status: 'paid', amountInCents: 100 }, setup.server))).status).toBe(200);
    expect(setup.jobs).toHaveLength(2);
    await setup.worker.runQueued(setup.jobs[1]!, { attempt: 1, final: false });
    expect(setup.ran).toHaveLength(1);
    expect((await setup.book.held()).map((held) => [held.resourceId, held.violations.map((v) => v.reason)])).toEqual([
      [wrong, ['amount_mismatch']],
    ]);
    expect(setup.worker.metrics()).toMatchObject({ handled: 1 });
    await setup.receiver.close();
  });
});

describe('durable mode for PSP events: the job', () => {
  it('Mercado Pago: a fetch that fails at intake answers 503 gateway_unavailable and queues nothing; the retry queues the fetched state', async () => {
    const setup = durableSetup(mercadoPago);
    const request = await mercadoPago.delivery({ id: '99887766', status: 'paid', amountInCents: 4200 }, setup.server);
    setup.server!.fail(1, { status: 500 });
    const failed = await setup.receive(request);
    expect([failed.status, failed.reason]).toEqual([503, 'gateway_unavailable']);
    expect(setup.jobs).toEqual([]);
    expect((await setup.receive(request)).status).toBe(200);
    expect(setup.jobs).toHaveLength(1);
    // The job holds the fetched payment (the webhook named only its id): the worker reads no API.
    expect(JSON.parse(setup.jobs[0]!.body)).toMatchObject({ payload: { id: '99887766', status: 'approved', transaction_amount: 42 } });
    await setup.worker.runQueued(setup.jobs[0]!, { attempt: 1, final: false });
    expect(setup.ran.map((event) => [event.provider, event.transaction.amountInCents])).toEqual([['mercado-pago', 4200]]);
    await setup.receiver.close();
  });

  it('a job whose event no longer reads is payload_invalid (dead-lettered), never run', async () => {
    const setup = durableSetup(profiles.find((profile) => profile.psp === 'asaas')!);
    expect(
      (await setup.receive(await profiles[1]!.delivery({ id: 'pay_bad', status: 'paid', amountInCents: 500 }, undefined))).status,
    ).toBe(200);
    const job = setup.jobs[0]!;
    const event = JSON.parse(job.body) as { transaction: Record<string, unknown> };
    const broken: QueuedEvent[] = [
      { ...job, body: JSON.stringify({ ...event, transaction: { ...event.transaction, amountInCents: '500' } }) },
      { ...job, body: JSON.stringify({ ...event, transaction: { ...event.transaction, id: '' } }) },
      { ...job, body: JSON.stringify({ ...event, name: 'pix_received' }) },
      { ...job, body: JSON.stringify({ ...event, payload: 'x' }) },
      { ...job, body: '[]' },
      { ...job, provider: 'woovi' },
      { ...job, provider: 'gateway-x' as never },
    ];
    for (const bad of broken)
      await expect(setup.worker.runQueued(bad, { attempt: 1, final: false })).rejects.toMatchObject({ code: 'payload_invalid' });
    expect(setup.ran).toEqual([]);
    await setup.worker.runQueued(job, { attempt: 1, final: false });
    expect(setup.ran).toHaveLength(1);
    await setup.receiver.close();
  });
});
