import { readFileSync } from 'node:fs';
import { internalsOf } from '../../src/adapter-kit/index.js';
import { createApiPixClient, createApiPixReceiver } from '../../src/api-pix/index.js';
import { createConsole } from '../../src/console/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { memoryJournal, memoryPaymentBook, memoryQuarantine } from '../../src/index.js';
import type { Processing } from '../../src/index.js';
import { untilSignal } from './cli-args.js';
import { devApiPixSandbox } from './dev-api-pix-sandbox.js';
import { serveDev } from './dev-server.js';
import { devControls } from './dev-controls.js';
import { apiPixEnvLines } from './api-pix-env-lines.js';
import { printJournalDeliveries } from './delivery-lines.js';
import { eventLine } from './event-line.js';
import { jsonText } from './json-text.js';
import { serveReceiver } from './serve-receiver.js';
import { stderrLogger } from './stderr-logger.js';

const webhookPath = '/webhooks/pix';

/**
 * `pixhook dev --profile api-pix`: the standard PSP (the emulator's api-pix profile, over mTLS with certificates
 * made for the run), `createApiPixReceiver` behind Node-terminated mTLS on a port of its own (it serves the run's
 * server certificate and trusts only the run's CA, as a merchant trusts its PSP's), the emulator's webhook
 * registered to it through the API, a memory book expecting every cob by txid, the journal and the console.
 */
export async function runApiPixDev(input: {
  port: number;
  register: ((processing: Processing) => Promise<void>) | undefined;
  handlersName: string | undefined;
}): Promise<void> {
  const emulator = await startEmulator({ profile: 'api-pix' });
  const closers: (() => Promise<unknown>)[] = [() => emulator.close()];
  try {
    const pem = (path: string) => readFileSync(path, 'utf8');
    const { certificates } = emulator;
    const book = memoryPaymentBook();
    const journal = memoryJournal({ max: 5000 });
    const quarantine = memoryQuarantine();
    const receiver = createApiPixReceiver({
      auth: { mtls: { ca: pem(certificates.ca) } },
      keys: [emulator.credentials.pixKey],
      book,
      quarantine,
      journal,
      logger: stderrLogger,
    });
    closers.push(() => receiver.close());
    if (input.register) await input.register(internalsOf(receiver).processing);
    else receiver.onAny((event, context) => void process.stdout.write(`${jsonText(eventLine(event, context))}\n`));

    const served = await serveReceiver({
      receiver,
      host: '127.0.0.1',
      port: 0,
      path: webhookPath,
      subpaths: true,
      tls: { cert: pem(certificates.serverCert), key: pem(certificates.serverKey), ca: pem(certificates.ca) },
    });
    // Closed before the receiver: no call arrives while it drains.
    closers.push(() => served.close());

    const client = createApiPixClient({
      baseUrl: emulator.url,
      clientId: emulator.credentials.clientId,
      clientSecret: emulator.credentials.clientSecret,
      cert: certificates.clientCert,
      key: certificates.clientKey,
      ca: certificates.ca,
      pixKey: emulator.credentials.pixKey,
      book,
      logger: stderrLogger,
    });
    closers.push(async () => client.close());
    await client.configureWebhook(served.url);

    const sandbox = devApiPixSandbox({ emulator, client });
    const dev = await serveDev({
      receiver,
      port: input.port,
      webhookPaths: [],
      controls: devControls({
        profile: 'api-pix',
        sandbox,
        journal,
        processing: internalsOf(receiver).processing,
        receiver: () => served.url,
      }),
      console: createConsole({
        journal,
        book,
        quarantine,
        receiver,
        logger: stderrLogger,
        sandbox,
      }),
    });
    closers.push(() => dev.close());
    const stopLines = printJournalDeliveries(
      journal,
      (text) => process.stdout.write(text),
      () => served.url,
      'api-pix',
    );
    closers.push(async () => stopLines());
    const handling = input.handlersName === undefined ? 'printing each event' : `running ${jsonText(input.handlersName)}`;
    // Armed before the ready line: a signal sent as soon as it is read must not find the default action.
    const signalled = untilSignal();
    process.stdout.write(
      [
        `pixhook dev: api-pix PSP at ${emulator.url} (mTLS; controls under /_emulator); its client id and secret (made for this run, dev-only) and certificates, as pixhook reconcile --profile api-pix reads them:`,
        ...apiPixEnvLines(emulator),
        `pixhook dev: CA ${jsonText(certificates.ca)}`,
        `pixhook dev: client certificate ${jsonText(certificates.clientCert)} key ${jsonText(certificates.clientKey)}`,
        `pixhook dev: server certificate ${jsonText(certificates.serverCert)} key ${jsonText(certificates.serverKey)}`,
        `pixhook dev: receiver at ${served.url} (mTLS, the PSP's webhook for key ${jsonText(emulator.credentials.pixKey)}), ${handling}`,
        `pixhook dev: console, open it in a browser:`,
        dev.url,
        '',
      ].join('\n'),
    );
    await signalled;
  } finally {
    // The console, then the receiver's port, then the receiver (drains its runs), then the emulator.
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}
