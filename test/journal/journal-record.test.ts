import { describe, expect, it } from 'vitest';
import { memoryJournal } from '../../src/index.js';
import { JournalWriter } from '../../src/journal/journal-writer.js';
import { silentLogger } from '../../src/shared/logger.js';

// Issue 32 §6: a delivery's id is built off the answer path (when first read), yet ids still sort by arrival.
describe('JournalRecord ids', () => {
  it('sort by arrival, whichever is read first', () => {
    const writer = new JournalWriter(memoryJournal(), silentLogger, () => undefined);
    const first = writer.open(1_700_000_000_000)!;
    const second = writer.open(1_700_000_000_000)!;
    const later = writer.open(1_700_000_000_001)!;
    const ids = [later.id, second.id, first.id];
    expect([...ids].sort()).toEqual([first.id, second.id, later.id]);
    expect(new Set(ids).size).toBe(3);
    expect(first.id).toBe(first.id);
  });

  it('a handler run joined before the write is built into the entry after the answer', async () => {
    const journal = memoryJournal();
    const writer = new JournalWriter(journal, silentLogger, () => undefined);
    const record = writer.open(Date.UTC(2026, 0, 2, 3, 4, 5))!;
    let built = 0;
    writer.attempt(record, {
      toAttempt: () => (built++, { attempt: 1, at: '2026-01-02T03:04:05.000Z', durationMs: 1.5, outcome: 'ok' }),
    });
    writer.add(record, () => ({ id: record.id, at: '2026-01-02T03:04:05.000Z', verified: true, status: 200, bodyBytes: 2, attempts: [] }));
    expect(built).toBe(0);
    await writer.idle();
    expect(built).toBe(1);
    expect(await journal.get(record.id)).toMatchObject({ status: 200, attempts: [{ attempt: 1, outcome: 'ok', durationMs: 1.5 }] });
  });
});
