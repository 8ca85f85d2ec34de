// What a shared journal backend (src/redis, src/postgres) implements and may use: the `DeliveryJournal`
// contract, the one text form of a stored entry, the query rules, and the feed that turns polling into
// `subscribe`. Backends import the journal only through this file (eslint.config.js).

export type { DeliveryJournal, JournalEntry, JournalQuery } from './delivery-journal.js';
export { entryFromText, entryText } from './stored-entry.js';
export { listLimit, matchesQuery } from './journal-query.js';
export { SharedJournalFeed } from './shared-journal-feed.js';
