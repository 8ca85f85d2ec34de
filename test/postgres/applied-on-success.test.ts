import { afterAll, describe, expect, it } from 'vitest';
import { createReceiver, memoryDedupeStore, type PixEvent } from '../../src/index.js';
import { postgresInbox, postgresPaymentBook, type PostgresInbox, type TransactionalContext } from '../../src/postgres/index.js';
import {
  backgroundAppliesOnSuccess,
  backgroundFailsThenRetry,
  freshCharge,
  paidDelivery,
  releaseFailsThenAgain,
  secret,
  throwsOnceApiPix,
  throwsOnceInline,
  timeoutThenRetry,
  twoInstances,
  type Backend,
} from '../book/applied-on-success-scenarios.js';
import { freshTable, usePostgres } from './use-postgres.js';

const db = usePostgres();

// Issue 36 §1 on the Postgres book. Without the inbox the apply is one compare-and-set statement once the handlers
// succeeded (then the done mark); with it, the book's transaction commits with the done mark. Without the inbox
// each scenario failed on the code before it (the apply was committed before the handlers ran).
describe('postgres book without the inbox: a fact is applied exactly when its handlers succeed', () => {
  const fresh = async (): Promise<Backend> => {
    const book = postgresPaymentBook({ db: db().pool, table: freshTable('book') });
    await book.migrate();
    return { book, store: memoryDedupeStore() };
  };

  it('a handler that throws once: 500, 200, 200 duplicate, and it succeeded once', async () => throwsOnceInline(await fresh()));
  it('the same on the API Pix receiver', async () => throwsOnceApiPix(await fresh()));
  it('background: applied only when the internal retry succeeds', async () => backgroundAppliesOnSuccess(await fresh()));
  it('background: every run failed, nothing applied, the sender’s retry runs it', async () => backgroundFailsThenRetry(await fresh()));
  it('a timed-out run: in_flight while it runs, then the retry runs the handler', async () => timeoutThenRetry(await fresh()));
  it('a release that fails leaves it held; released again it runs once', async () => releaseFailsThenAgain(await fresh()));
  it('two instances sharing the book and the store', async () => {
    const shared = await fresh();
    await twoInstances(() => shared);
  });
});

describe('postgres book with the inbox', () => {
  const inboxes: PostgresInbox[] = [];
  // The store's lock session holds a connection until closed.
  afterAll(() => Promise.all(inboxes.map((inbox) => inbox.close())));
  const fresh = async () => {
    const inbox = postgresInbox({ pool: db().pool, table: freshTable() });
    inboxes.push(inbox);
    await inbox.migrate();
    const book = postgresPaymentBook({ db: db().pool, inbox, table: freshTable('book') });
    await book.migrate();
    return { inbox, backend: { book, store: inbox.store } };
  };

  it('a handler that throws once: 500, 200, 200 duplicate, and it succeeded once', async () => throwsOnceInline((await fresh()).backend));
  it('the same on the API Pix receiver', async () => throwsOnceApiPix((await fresh()).backend));

  it('an inbox.transactional handler reads context.signal and attempt as every handler does (a TypeError before)', async () => {
    const { inbox, backend } = await fresh();
    const seen: { aborted: boolean; attempt: number; key: string | undefined }[] = [];
    const receiver = createReceiver({ secret, book: backend.book, store: backend.store }).on(
      'transaction_paid',
      inbox.transactional(async (_event: PixEvent, context: TransactionalContext) => {
        seen.push({ aborted: context.signal.aborted, attempt: context.attempt, key: context.key });
        await context.tx.query('SELECT 1');
      }),
    );
    const id = freshCharge('signal');
    const answer = await receiver.receive(paidDelivery(id));
    expect([answer.status, answer.reason]).toEqual([200, undefined]);
    expect(seen).toEqual([{ aborted: false, attempt: 1, key: answer.key }]);
    expect((await backend.book.get(id))?.status).toBe('paid');
    await receiver.close();
  });

  it('its context, and a copy of it made with Object.create, read the run’s own; markDuplicate marks the run', async () => {
    const { inbox, backend } = await fresh();
    const seen: unknown[] = [];
    const receiver = createReceiver({ secret, book: backend.book, store: backend.store }).on(
      'transaction_paid',
      inbox.transactional(async (_event: PixEvent, context: TransactionalContext) => {
        const copy = Object.create(context) as TransactionalContext;
        seen.push([
          context.mode,
          context.source,
          copy.attempt,
          copy.key === context.key,
          copy.signal === context.signal,
          copy.tx === context.tx,
        ]);
        await copy.tx.query('SELECT 1');
        copy.markDuplicate();
      }),
    );
    const answer = await receiver.receive(paidDelivery(freshCharge('copy')));
    expect(seen).toEqual([['inline', 'webhook', 1, true, true, true]]);
    // Marked through the copy: the run ends as a duplicate, not as a new success.
    expect([answer.status, answer.reason]).toEqual([200, 'duplicate']);
    await receiver.close();
  });
});
