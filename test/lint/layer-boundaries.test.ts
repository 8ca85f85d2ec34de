import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The import rules of the README's Architecture section, proven to fail a wrong-way import.
const eslint = new ESLint({ cwd: process.cwd() });

async function restricted(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer boundaries (eslint no-restricted-imports)', () => {
  it.each([
    ['src/processing/probe.ts', "import { createReceiver } from '../intake/create-receiver.js';"],
    ['src/events/probe.ts', "import { createProcessing } from '../processing/create-processing.js';"],
    ['src/shared/probe.ts', "import { eventKey } from '../events/event-key.js';"],
    ['src/intake/probe.ts', "import { createExpressMiddleware } from '../../adapters/express/index.js';"],
    // One pipeline for every source (issue 38): intake never imports the receivers composed over it.
    ['src/intake/probe.ts', "import { createPspReceiver } from '../psp/create-psp-receiver.js';"],
    ['src/intake/probe.ts', "import { createInvalidKeeper } from '../api-pix/receiver/keep-invalid.js';"],
    ['src/sources/gateway/probe.ts', "import { createReceiver } from '../../intake/create-receiver.js';"],
    ['src/processing/probe.ts', "import { main } from '../../cli/main.js';"],
    ['adapters/express/probe.ts', "import { createProcessing } from '../../src/processing/create-processing.js';"],
    ['adapters/node/probe.ts', "import { main } from '../../cli/main.js';"],
    ['src/emulator/probe.ts', "import { createClient } from '../client/create-client.js';"],
    ['src/redis/probe.ts', "import { guardStore } from '../dedupe/guard-store.js';"],
    ['cli/probe-command.ts', "import { listenCommand } from './listen-command.js';"],
    // The adapter kit (issue 21): only adapters/ and cli/ import it.
    ['src/redis/probe.ts', "import { internalsOf } from '../adapter-kit/index.js';"],
    ['src/postgres/probe.ts', "import { assertKeptAlive } from '../adapter-kit/assert-kept-alive.js';"],
    ['src/intake/probe.ts', "import { internalsOf } from '../adapter-kit/index.js';"],
    ['src/processing/probe.ts', "import { internalsOf } from '../adapter-kit/index.js';"],
    ['src/testing/probe.ts', "import { withReceive } from '../adapter-kit/index.js';"],
    ['src/index.ts', "export { internalsOf } from './adapter-kit/index.js';"],
    ['examples/node-http/probe.js', "import { internalsOf } from '../../src/adapter-kit/index.js';"],
    ['bench/probe.js', "import { internalsOf } from '../src/adapter-kit/index.js';"],
    ['adapters/web/probe.ts', "import { assertKeptAlive } from '../../src/adapter-kit/assert-kept-alive.js';"],
    ['adapters/web/probe.ts', "import { internalsOf } from '../../src/intake/receiver-internals.js';"],
    ['src/adapter-kit/probe.ts', "import { createNodeHandler } from '../../adapters/node/index.js';"],
    // The console (issue 23) is outside the core's import graph, and its browser client outside the server's.
    ['src/intake/probe.ts', "import { createConsole } from '../console/index.js';"],
    ['src/processing/probe.ts', "import { html } from '../console/html.js';"],
    ['src/redis/probe.ts', "import { createConsole } from '../console/index.js';"],
    ['src/index.ts', "export { createConsole } from './console/index.js';"],
    ['adapters/express/probe.ts', "import { createConsole } from '../../src/console/index.js';"],
    ['src/console/probe.ts', "import { eventKey } from '../events/event-key.js';"],
    ['src/console/client/probe.ts', "import { html } from '../html.js';"],
    // Issue 38: a source imports only shared, events and signature, at any depth of src/sources/.
    ['src/sources/probe.ts', "import { createProcessing } from '../processing/create-processing.js';"],
    ['src/sources/asaas/probe.ts', "import { guardStore } from '../../dedupe/guard-store.js';"],
    ['src/sources/woovi/probe.ts', "import { memoryPaymentBook } from '../../book/memory-payment-book.js';"],
    ['src/sources/pagbank/probe.ts', "import { memoryJournal } from '../../journal/memory-journal.js';"],
    ['src/sources/shared/probe.ts', "import { readBody } from '../../intake/read-body.js';"],
    ['src/sources/mercado-pago/probe.ts', "import { createPspReceiver } from '../../psp/index.js';"],
    // Issue 23: the journal sits below processing and intake, which write it.
    ['src/journal/probe.ts', "import { createProcessing } from '../processing/create-processing.js';"],
    // Declared backends: the book and the journal have their own layers, and Redis/Postgres see only backend.ts.
    ['src/journal/probe.ts', "import { channelOf } from '../book/book-state.js';"],
    ['src/journal/probe.ts', "import type { PaymentBook } from '../book/backend.js';"],
    ['src/book/probe.ts', "import { memoryJournal } from '../journal/memory-journal.js';"],
    ['src/book/probe.ts', "import { createProcessing } from '../processing/create-processing.js';"],
    ['src/book/probe.ts', "import { createReceiver } from '../intake/create-receiver.js';"],
    ['src/events/probe.ts', "import type { Violation } from '../book/payment-policy.js';"],
    ['src/events/probe.ts', "import type { JournalEntry } from '../journal/delivery-journal.js';"],
    ['src/shared/probe.ts', "import { defaultPolicy } from '../book/payment-policy.js';"],
    ['src/dedupe/probe.ts', "import { recordStep } from '../book/book-state.js';"],
    ['src/redis/probe.ts', "import { recordStep } from '../book/book-state.js';"],
    ['src/redis/probe.ts', "import { evaluatePolicy } from '../book/evaluate-policy.js';"],
    ['src/postgres/probe.ts', "import { claimedHeld } from '../book/held-lease.js';"],
    ['src/postgres/probe.ts', "import { entryText } from '../journal/stored-entry.js';"],
    ['src/redis/probe.ts', "import { SharedJournalFeed } from '../journal/shared-journal-feed.js';"],
    ['src/redis/probe.ts', "import { channelOf } from '../events/book-channel.js';"],
    ['src/client/probe.ts', "import { recordStep } from '../book/backend.js';"],
    ['src/emulator/probe.ts', "import { memoryJournal } from '../journal/memory-journal.js';"],
  ])('%s: %s fails lint', async (file, source) => {
    expect(await restricted(file, `${source}\nexport {};\n`)).toHaveLength(1);
  });

  it.each([
    ['adapters/express/probe.ts', "import { createReceiver } from '../../src/index.js';"],
    ['src/redis/probe.ts', "import { createProcessing } from '../index.js';"],
    ['src/intake/probe.ts', "import { createProcessing } from '../processing/create-processing.js';"],
    ['src/emulator/probe.ts', "import { normalizeEvent } from '../index.js';"],
    ['adapters/web/probe.ts', "import { internalsOf } from '../../src/adapter-kit/index.js';"],
    ['cli/shared/probe.ts', "import { internalsOf } from '../../src/adapter-kit/index.js';"],
    ['cli/probe-command.ts', "import { withReceive } from '../src/adapter-kit/index.js';"],
    ['src/adapter-kit/probe.ts', "import { registerInternals } from '../intake/receiver-internals.js';"],
    ['src/console/probe.ts', "import { internalsOf } from '../adapter-kit/index.js';"],
    ['src/console/probe.ts', "import { memoryJournal } from '../index.js';"],
    ['cli/probe-command.ts', "import { createConsole } from '../src/console/index.js';"],
    ['src/redis/probe.ts', "import { recordStep, type PaymentBook } from '../book/backend.js';"],
    ['src/postgres/probe.ts', "import { SharedJournalFeed } from '../journal/backend.js';"],
    ['src/book/probe.ts', "import type { Violation } from '../events/violation.js';"],
    ['src/journal/probe.ts', "import { channelOf } from '../events/book-channel.js';"],
    ['src/book/probe.ts', "import type { DedupeStore } from '../dedupe/dedupe-store.js';"],
    ['src/sources/asaas/probe.ts', "import { eventKey } from '../../events/event-key.js';"],
    ['src/sources/shared/probe.ts', "import { readHeader } from '../../shared/read-header.js';"],
    ['src/processing/probe.ts', "import { sourceKey } from '../sources/keys.js';"],
  ])('%s: %s is allowed', async (file, source) => {
    expect(await restricted(file, `${source}\nexport {};\n`)).toEqual([]);
  });
});
