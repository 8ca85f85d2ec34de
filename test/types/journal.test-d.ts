import { describe, expectTypeOf, it } from 'vitest';
import {
  createProcessing,
  createReceiver,
  memoryJournal,
  type DeliveryJournal,
  type JournalAttempt,
  type JournalEntry,
  type JournalQuery,
  type MemoryJournal,
  type ProcessingMetrics,
  type ReceiveRequest,
} from '../../src/index.js';
import { redisJournal } from '../../src/redis/index.js';
import { postgresJournal, type PostgresJournal } from '../../src/postgres/index.js';

declare const entry: JournalEntry;
declare const attempt: JournalAttempt;

describe('the delivery journal', () => {
  it('answers every method with a promise, on every backend', () => {
    const journal: DeliveryJournal = memoryJournal({ max: 10 });
    expectTypeOf(journal.add(entry)).toEqualTypeOf<Promise<void>>();
    expectTypeOf(journal.addAttempt('id', attempt)).toEqualTypeOf<Promise<void>>();
    expectTypeOf(journal.get('id')).toEqualTypeOf<Promise<JournalEntry | undefined>>();
    expectTypeOf(journal.list({ event: 'transaction_paid', status: 200, before: 'x', limit: 10 })).toEqualTypeOf<Promise<JournalEntry[]>>();
    expectTypeOf(journal.subscribe(() => undefined)).toEqualTypeOf<() => void>();
    expectTypeOf(memoryJournal()).toEqualTypeOf<MemoryJournal>();
    expectTypeOf<MemoryJournal['size']>().toEqualTypeOf<number>();
    expectTypeOf(redisJournal).returns.toEqualTypeOf<DeliveryJournal>();
    expectTypeOf(postgresJournal).returns.toEqualTypeOf<PostgresJournal>();
    expectTypeOf<PostgresJournal>().toMatchTypeOf<DeliveryJournal>();
  });

  it('types what an entry and an attempt hold', () => {
    expectTypeOf<JournalAttempt['outcome']>().toEqualTypeOf<'ok' | 'failed' | 'timed_out' | 'claim_lost'>();
    expectTypeOf<JournalAttempt['run']>().toEqualTypeOf<'release' | 'replay' | undefined>();
    expectTypeOf<JournalEntry['body']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<JournalQuery['status']>().toEqualTypeOf<number | undefined>();
    // @ts-expect-error an attempt's outcome is one of four
    const wrong: JournalAttempt = { attempt: 1, at: '', durationMs: 0, outcome: 'maybe' };
    void wrong;
  });

  it('is an option of the receiver and of processing, and a replay is marked on a request or on accept', () => {
    createReceiver({ secret: 's', journal: memoryJournal() });
    createProcessing({ journal: memoryJournal() });
    // @ts-expect-error a journal is a DeliveryJournal
    createReceiver({ secret: 's', journal: { add: () => Promise.resolve() } });
    // @ts-expect-error with a shared processing, the journal goes to createProcessing
    createReceiver({ secret: 's', processing: createProcessing(), journal: memoryJournal() });
    expectTypeOf<ReceiveRequest['remoteAddress']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ReceiveRequest['replayOf']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Parameters<ReturnType<typeof createProcessing>['accept']>[1]>().toMatchTypeOf<{ replayOf?: string } | undefined>();
    expectTypeOf<ProcessingMetrics['journalFailures']>().toEqualTypeOf<number>();
    // @ts-expect-error remoteAddress is a string
    const request: ReceiveRequest = { headers: {}, body: undefined, remoteAddress: 127 };
    void request;
  });
});
