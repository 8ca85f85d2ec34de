// Issue 36 §1, one set of scenarios run on every payment book (memory here, Redis and Postgres in their
// integration files): a fact is applied exactly when its handlers succeed. A handler that fails, times out or
// dies leaves the book as it was, so the sender's retry runs it; a success is applied once, never twice.
import { expect } from 'vitest';
import { createApiPixReceiver } from '../../src/api-pix/index.js';
import {
  createReceiver,
  type DedupeStore,
  type HandlerContext,
  type PaymentBook,
  type PixEvent,
  type ReceiverOptions,
} from '../../src/index.js';
import { apiPixBody, apiPixPix, buildPayload, seededRandom } from '../../src/testing/index.js';
import { call, urlSecret } from '../api-pix/fixtures.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

export const secret = 'whsec_applied_on_success';

/** A book and a store shared by the receivers of one scenario (each scenario gets fresh ones). */
export interface Backend {
  book: PaymentBook;
  store?: DedupeStore;
}

let charges = 0;
/** A charge id no other scenario of this process uses (the Redis and Postgres books outlive one scenario). */
export const freshCharge = (label: string): string => `${label}-${process.pid}-${++charges}-${Date.now().toString(36)}`;

export function paidDelivery(id: string, amountInCents = 1000) {
  const bytes = bytesOf(buildPayload('transaction_paid', { variant: 'b', seed: 1, id, amountInCents }));
  return { method: 'POST', headers: { 'x-signature': signBytes(bytes, secret) }, body: bytes };
}

/** A `transaction_paid` handler that throws on its first `failures` calls; `ok` counts its successes. */
export function flakyHandler(failures = 1) {
  const counts = { calls: 0, ok: 0 };
  const handler = (): void => {
    counts.calls += 1;
    if (counts.calls <= failures) throw new Error('the ledger is down');
    counts.ok += 1;
  };
  return { counts, handler };
}

function gatewayReceiver(backend: Backend, options: Partial<ReceiverOptions> = {}) {
  return createReceiver({
    secret,
    book: backend.book,
    ...(backend.store !== undefined && { store: backend.store }),
    ...options,
  } as ReceiverOptions);
}

/** The ten lines: a handler that throws once, the same signed delivery three times → 500, 200, 200 duplicate; run once. */
export async function throwsOnceInline(backend: Backend): Promise<void> {
  const id = freshCharge('once');
  const { counts, handler } = flakyHandler();
  const receiver = gatewayReceiver(backend).on('transaction_paid', handler);
  const request = paidDelivery(id);
  const answers: string[] = [];
  for (let i = 0; i < 3; i++) {
    const result = await receiver.receive(request);
    answers.push(`${result.status} ${result.reason ?? ''}`.trim());
  }
  expect(answers).toEqual(['500 handler_failed', '200', '200 duplicate']);
  expect(counts).toEqual({ calls: 2, ok: 1 });
  const resource = await backend.book.get(id);
  expect(resource?.status).toBe('paid');
  expect(resource?.timeline.map((entry) => entry.outcome)).toEqual(['apply']);
  await receiver.close();
}

/** The same on the API Pix receiver: a `pix_received` handler that throws once; the PSP's retries run it once. */
export async function throwsOnceApiPix(backend: Backend, seed = 1): Promise<void> {
  const { counts, handler } = flakyHandler();
  const receiver = createApiPixReceiver({
    auth: { urlSecret: { secret: urlSecret } },
    book: backend.book,
    ...(backend.store !== undefined && { store: backend.store }),
  }).on('pix_received', handler);
  const pix = apiPixPix({ random: seededRandom(seed + charges++ + Date.now()) });
  const body = apiPixBody([pix]);
  const answers: number[] = [];
  for (let i = 0; i < 3; i++) answers.push((await receiver.receive(call(body))).status);
  expect(answers[0]).toBe(500);
  expect(answers.slice(1)).toEqual([200, 200]);
  expect(counts).toEqual({ calls: 2, ok: 1 });
  const resource = await backend.book.get(pix.txid ?? '');
  if (resource !== undefined) expect(resource.timeline.filter((entry) => entry.outcome === 'apply')).toHaveLength(1);
  await receiver.close();
}

/**
 * Background mode: the first run fails, the internal retry succeeds; until it does, `book.get` shows the
 * payment not applied (the retry is held at a gate to look).
 */
export async function backgroundAppliesOnSuccess(backend: Backend): Promise<void> {
  const id = freshCharge('background');
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let retried!: () => void;
  const retrying = new Promise<void>((resolve) => (retried = resolve));
  const counts = { calls: 0, ok: 0 };
  const receiver = gatewayReceiver(backend, { mode: 'background', retry: { attempts: 3, backoff: { delayMs: 1 } } }).on(
    'transaction_paid',
    async () => {
      counts.calls += 1;
      if (counts.calls === 1) throw new Error('the ledger is down');
      retried();
      await gate;
      counts.ok += 1;
    },
  );
  const first = await receiver.receive(paidDelivery(id));
  expect([first.status, first.reason]).toEqual([200, undefined]);
  await retrying;
  // The first run failed and the second is under way: nothing is applied yet.
  expect((await backend.book.get(id))?.status ?? 'pending').toBe('pending');
  open();
  await receiver.drain();
  expect(counts).toEqual({ calls: 2, ok: 1 });
  expect((await backend.book.get(id))?.status).toBe('paid');
  const again = await receiver.receive(paidDelivery(id));
  expect([again.status, again.reason]).toEqual([200, 'duplicate']);
  await receiver.close();
}

/** Background mode whose every run fails: the book never shows the payment applied, and the sender's retry runs it. */
export async function backgroundFailsThenRetry(backend: Backend): Promise<void> {
  const id = freshCharge('background-failed');
  const { counts, handler } = flakyHandler(2);
  const receiver = gatewayReceiver(backend, { mode: 'background', retry: { attempts: 2, backoff: { delayMs: 1 } } }).on(
    'transaction_paid',
    handler,
  );
  expect((await receiver.receive(paidDelivery(id))).status).toBe(200);
  await receiver.drain();
  expect(counts).toEqual({ calls: 2, ok: 0 });
  expect((await backend.book.get(id))?.status ?? 'pending').toBe('pending');
  const retry = await receiver.receive(paidDelivery(id));
  expect([retry.status, retry.reason]).toEqual([200, undefined]);
  await receiver.drain();
  expect(counts).toEqual({ calls: 3, ok: 1 });
  expect((await backend.book.get(id))?.status).toBe('paid');
  await receiver.close();
}

/**
 * A run past `deadlineMs` answers 503; the retry while it runs is `in_flight`; the run then times out (its
 * handler hangs), and the next retry runs the handler (not `duplicate`), once.
 */
export async function timeoutThenRetry(backend: Backend): Promise<void> {
  const id = freshCharge('timeout');
  const counts = { calls: 0, ok: 0, aborted: 0 };
  const receiver = gatewayReceiver(backend, { deadlineMs: 20, handlerTimeoutMs: 300 }).on(
    'transaction_paid',
    async (_event: PixEvent, context: HandlerContext) => {
      counts.calls += 1;
      if (counts.calls === 1) {
        // Hangs until pixhook abandons it; its late end changes nothing.
        await new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve(), { once: true }));
        counts.aborted += 1;
        return;
      }
      counts.ok += 1;
    },
  );
  const request = paidDelivery(id);
  const first = await receiver.receive(request);
  expect([first.status, first.reason]).toEqual([503, 'handler_timeout']);
  // The retry while it runs: in_flight (the claim is taken first), or, where the order lease is taken before the
  // claim (a Redis book joined with its store), it waits for the lease, which the abandoned run gives back when
  // it times out, and then runs the handler.
  const during = await receiver.receive(request);
  expect([`${during.status} ${during.reason}`]).toContainEqual(expect.stringMatching(/^(503 in_flight|200 undefined)$/));
  await receiver.drain();
  expect(counts.aborted).toBe(1);
  if (during.status === 503) {
    expect((await backend.book.get(id))?.status ?? 'pending').toBe('pending');
    const after = await receiver.receive(request);
    expect([after.status, after.reason]).toEqual([200, undefined]);
  }
  const last = await receiver.receive(request);
  expect([last.status, last.reason]).toEqual([200, 'duplicate']);
  expect(counts).toEqual({ calls: 2, ok: 1, aborted: 1 });
  expect((await backend.book.get(id))?.status).toBe('paid');
  await receiver.close();
}

/** A held payment whose release fails stays held; released again, its handler succeeds once in all. */
export async function releaseFailsThenAgain(backend: Backend): Promise<void> {
  const id = freshCharge('release');
  await backend.book.expect({ id, amountInCents: 1000 });
  const { counts, handler } = flakyHandler();
  const receiver = gatewayReceiver(backend).on('transaction_paid', handler);
  const held = await receiver.receive(paidDelivery(id, 900));
  expect(held.reason).toBe('held');
  const [entry] = (await backend.book.held()).filter((item) => item.resourceId === id);
  expect(await receiver.release(entry!.heldId)).toEqual({ ok: false, reason: 'handler_failed' });
  expect((await backend.book.heldEvent(entry!.heldId))?.state).toBe('held');
  expect((await backend.book.get(id))?.status).toBe('pending');
  const released = await Promise.all([receiver.release(entry!.heldId), receiver.release(entry!.heldId)]);
  expect(released.filter((result) => result.ok)).toHaveLength(1);
  expect(await receiver.release(entry!.heldId)).toEqual({ ok: false, reason: 'already_released' });
  expect(counts).toEqual({ calls: 2, ok: 1 });
  expect((await backend.book.get(id))?.status).toBe('paid');
  const retry = await receiver.receive(paidDelivery(id, 900));
  expect(retry.reason).toBe('duplicate');
  expect(counts.ok).toBe(1);
  await receiver.close();
}

/** Two receivers sharing the book and store: a failure on one, the retry on the other runs it; a third copy is a duplicate. */
export async function twoInstances(make: () => Backend): Promise<void> {
  const id = freshCharge('two');
  const a = make();
  const b = make();
  const { counts, handler } = flakyHandler();
  const first = gatewayReceiver(a).on('transaction_paid', handler);
  const second = gatewayReceiver(b).on('transaction_paid', handler);
  expect((await first.receive(paidDelivery(id))).status).toBe(500);
  expect((await second.receive(paidDelivery(id))).status).toBe(200);
  expect((await first.receive(paidDelivery(id))).reason).toBe('duplicate');
  expect(counts).toEqual({ calls: 2, ok: 1 });
  await first.close();
  await second.close();
}
