import { expectTypeOf, test } from 'vitest';
import {
  createConsole,
  recordReconcilerRuns,
  type ConsoleSandbox,
  type PixhookConsole,
  type SandboxCharge,
} from '../../src/console/index.js';
import { createProcessing, createReceiver, memoryJournal, memoryPaymentBook, memoryQuarantine } from '../../src/index.js';
import { createListingReconciler, createReconciler } from '../../src/reconcile/index.js';

test('createConsole takes a journal and optional parts, and returns fetch and node handlers', () => {
  const journal = memoryJournal();
  const book = memoryPaymentBook();
  const receiver = createReceiver({ secret: 's3cret', book, journal });
  const app = createConsole({ journal, book, quarantine: memoryQuarantine(), receiver, token: 'x'.repeat(32), basePath: '/console' });
  expectTypeOf(app).toEqualTypeOf<PixhookConsole>();
  expectTypeOf(app.fetch).returns.resolves.toEqualTypeOf<Response>();
  const reconciler = recordReconcilerRuns(
    createReconciler({ client: { getTransaction: async () => ({}) } as never, processing: receiver as never }),
  );
  createConsole({ journal, reconciler });
  // The API Pix listing reconciler too: its page shows the cursor's lag.
  createConsole({
    journal,
    reconciler: createListingReconciler({ client: { listPix: async function* () {} }, processing: createProcessing() }),
  });
  // @ts-expect-error the journal is required
  createConsole({ book });
  // @ts-expect-error a token is a string
  createConsole({ journal, token: 42 });
  // @ts-expect-error a quarantine must list and show
  createConsole({ journal, quarantine: { put: async () => 'id' } });
});

test('a sandbox without transfers (the API Pix profile) is a ConsoleSandbox; a charge may carry its location', () => {
  const charge: SandboxCharge = {
    id: 't',
    status: 'ATIVA',
    amountInCents: 1,
    emv: '000201',
    qrCode: '',
    location: 'psp/qr/v2/1',
    createdAt: '',
  };
  expectTypeOf(charge.location).toEqualTypeOf<string | undefined>();
  const answer = async () => 'done';
  const sandbox: ConsoleSandbox = {
    charges: async () => [charge],
    deliveries: async () => [],
    faults: async () => [],
    createCharge: answer,
    pay: answer,
    expire: answer,
    refund: answer,
    dispute: answer,
    injectFault: answer,
    clearFaults: answer,
  };
  createConsole({ journal: memoryJournal(), sandbox });
  // @ts-expect-error a location is a string
  const bad: SandboxCharge = { ...charge, location: 42 };
  void bad;
});
