import { expectTypeOf, test } from 'vitest';
import { memoryJournal, type MemoryJournalOptions } from '../../src/index.js';
import type { RedisJournalOptions } from '../../src/redis/index.js';
import type { PostgresJournalOptions } from '../../src/postgres/index.js';

// Issue 31: unverified deliveries have their own bound on every backend.
test('maxUnverified is an optional number on every journal', () => {
  expectTypeOf<MemoryJournalOptions['maxUnverified']>().toEqualTypeOf<number | undefined>();
  expectTypeOf<RedisJournalOptions['maxUnverified']>().toEqualTypeOf<number | undefined>();
  expectTypeOf<PostgresJournalOptions['maxUnverified']>().toEqualTypeOf<number | undefined>();
  memoryJournal({ max: 1000, maxUnverified: 100 });
  // @ts-expect-error a count, not text
  memoryJournal({ maxUnverified: '100' });
});
