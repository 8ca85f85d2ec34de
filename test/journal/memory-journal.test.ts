import { describe, expect, it } from 'vitest';
import { memoryJournal, PixhookConfigError, type JournalEntry } from '../../src/index.js';
import { entry } from './journal-entries.js';

describe('memoryJournal', () => {
  it('answers every method with a promise', () => {
    const journal = memoryJournal();
    const calls = [
      journal.add(entry()),
      journal.addAttempt('none', { attempt: 1, at: 'x', durationMs: 1, outcome: 'ok' }),
      journal.get('x'),
      journal.list(),
    ];
    for (const call of calls) expect(call).toBeInstanceOf(Promise);
    return Promise.all(calls);
  });

  it('lists newest first and keeps only the newest `max`', async () => {
    const journal = memoryJournal({ max: 3 });
    const added = [entry(), entry(), entry(), entry(), entry()];
    for (const e of added) await journal.add(e);
    expect(journal.size).toBe(3);
    expect((await journal.list()).map((e) => e.id)).toEqual([added[4]!.id, added[3]!.id, added[2]!.id]);
    expect(await journal.get(added[1]!.id)).toBeUndefined();
    expect(await journal.get(added[2]!.id)).toEqual(added[2]);
  });

  it('filters by event, status, reason and resource', async () => {
    const journal = memoryJournal();
    const a = entry({ event: 'transaction_paid', resourceId: 'c1' });
    const b = entry({ event: 'transaction_created', status: 503, reason: 'store_unavailable', resourceId: 'c1' });
    const c = entry({
      event: 'transfer_completed',
      status: 401,
      reason: 'signature_mismatch',
      verified: false,
      body: undefined,
      resourceId: undefined,
    });
    for (const e of [a, b, c]) await journal.add(e);
    const ids = async (query: Parameters<typeof journal.list>[0]) => (await journal.list(query)).map((e) => e.id);
    expect(await ids({ event: 'transaction_created' })).toEqual([b.id]);
    expect(await ids({ status: 401 })).toEqual([c.id]);
    expect(await ids({ reason: 'store_unavailable' })).toEqual([b.id]);
    expect(await ids({ resource: 'c1' })).toEqual([b.id, a.id]);
    expect(await ids({ resource: 'c1', status: 200 })).toEqual([a.id]);
    expect(await ids({ event: 'none' })).toEqual([]);
  });

  it('pages with `before` and `limit`', async () => {
    const journal = memoryJournal();
    const added: JournalEntry[] = [];
    for (let i = 0; i < 25; i++) added.push(entry());
    for (const e of added) await journal.add(e);
    const newest = added.map((e) => e.id).reverse();
    const first = await journal.list({ limit: 10 });
    expect(first.map((e) => e.id)).toEqual(newest.slice(0, 10));
    const second = await journal.list({ limit: 10, before: first.at(-1)!.id });
    expect(second.map((e) => e.id)).toEqual(newest.slice(10, 20));
    const third = await journal.list({ limit: 10, before: second.at(-1)!.id });
    expect(third.map((e) => e.id)).toEqual(newest.slice(20));
    // Tolerant limits: a missing or odd one is the default (100), a huge one the most (1000).
    expect(await journal.list({ limit: Number.NaN })).toHaveLength(25);
    expect(await journal.list({ limit: 0 })).toHaveLength(1);
  });

  it('appends attempts, and ignores an attempt for a dropped delivery', async () => {
    const journal = memoryJournal({ max: 1 });
    const a = entry();
    await journal.add(a);
    await journal.addAttempt(a.id, { attempt: 1, at: a.at, durationMs: 3, outcome: 'failed', error: 'boom' });
    await journal.addAttempt(a.id, { attempt: 2, at: a.at, durationMs: 2, outcome: 'ok' });
    expect((await journal.get(a.id))!.attempts.map((t) => t.outcome)).toEqual(['failed', 'ok']);
    await journal.add(entry());
    await expect(journal.addAttempt(a.id, { attempt: 3, at: a.at, durationMs: 1, outcome: 'ok' })).resolves.toBeUndefined();
    expect(await journal.get(a.id)).toBeUndefined();
  });

  it('hands out copies: changing what was read never changes the journal', async () => {
    const journal = memoryJournal();
    const a = entry({ warnings: ['w'] });
    await journal.add(a);
    const read = (await journal.get(a.id))!;
    read.attempts.push({ attempt: 9, at: a.at, durationMs: 0, outcome: 'ok' });
    read.warnings!.push('x');
    read.status = 500;
    expect(await journal.get(a.id)).toMatchObject({ status: 200, attempts: [], warnings: ['w'] });
  });

  it('tells subscribers of each add and each attempt until they unsubscribe', async () => {
    const journal = memoryJournal();
    const heard: string[] = [];
    const stop = journal.subscribe((e) => heard.push(`${e.id}:${e.attempts.length}`));
    const a = entry();
    await journal.add(a);
    await journal.addAttempt(a.id, { attempt: 1, at: a.at, durationMs: 1, outcome: 'ok' });
    stop();
    await journal.add(entry());
    expect(heard).toEqual([`${a.id}:0`, `${a.id}:1`]);
  });

  it('keeps the entry and tells the other subscribers when one throws, and rejects the write with it', async () => {
    const journal = memoryJournal();
    const heard: string[] = [];
    journal.subscribe(() => {
      throw new Error('subscriber down');
    });
    journal.subscribe((e) => heard.push(e.id));
    const a = entry();
    await expect(journal.add(a)).rejects.toThrow('a journal subscriber threw');
    expect(heard).toEqual([a.id]);
    expect(await journal.get(a.id)).toBeDefined();
  });

  it.each([
    [{ max: 0 }, 'pixhook: `max` must be an integer from 1 to 1000000, got 0'],
    [{ max: 1.5 }, 'pixhook: `max` must be an integer from 1 to 1000000, got 1.5'],
    [{ max: '10' }, 'pixhook: `max` must be an integer from 1 to 1000000, got the string "10"'],
    [null, 'pixhook: `options` must be an object ({ max }), got null'],
  ])('refuses %j', (options, message) => {
    expect(() => memoryJournal(options as never)).toThrow(PixhookConfigError);
    expect(() => memoryJournal(options as never)).toThrow(message);
  });
});
