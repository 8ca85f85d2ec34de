import { expectTypeOf, test } from 'vitest';
import { createConsole, createWatchdog, type Watchdog, type WatchdogAlert, type WatchdogAlertKind } from '../../src/console/index.js';
import { memoryJournal, memoryPaymentBook, memoryJournal as journalOf } from '../../src/index.js';

test('createWatchdog takes a journal and optional book, reconciler and thresholds; the console shows it', () => {
  const journal = memoryJournal();
  const watchdog = createWatchdog({
    journal,
    book: memoryPaymentBook(),
    onAlert: (alert) => expectTypeOf(alert).toEqualTypeOf<WatchdogAlert>(),
    silentAfterMinutes: 30,
    activeHours: { from: 11, to: 23 },
  });
  expectTypeOf(watchdog).toEqualTypeOf<Watchdog>();
  expectTypeOf(watchdog.check).returns.resolves.toEqualTypeOf<readonly WatchdogAlert[]>();
  expectTypeOf<WatchdogAlert['kind']>().toEqualTypeOf<WatchdogAlertKind>();
  createConsole({ journal: journalOf(), watchdog });
  // @ts-expect-error the journal is required
  createWatchdog({ silentAfterMinutes: 5 });
  // @ts-expect-error minutes are numbers
  createWatchdog({ journal, silentAfterMinutes: '5' });
});
