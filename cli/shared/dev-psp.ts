import { randomBytes } from 'node:crypto';
import { internalsOf } from '../../src/adapter-kit/index.js';
import { createConsole } from '../../src/console/index.js';
import { startEmulator, type PspEmulator, type PspProfileName } from '../../src/emulator/index.js';
import { memoryJournal, memoryPaymentBook, memoryQuarantine } from '../../src/index.js';
import type { Processing } from '../../src/index.js';
import { createPspReceiver, type PspSourceOptions } from '../../src/psp/index.js';
import { untilSignal } from './cli-args.js';
import { devPspSandbox } from './dev-psp-sandbox.js';
import { serveDev } from './dev-server.js';
import { eventLine } from './event-line.js';
import { jsonText } from './json-text.js';
import { stderrLogger } from './stderr-logger.js';

/** The receiver's options for the PSP, from the emulator's credentials (Pagar.me's URL secret made here). */
function receiverOptions(emulator: PspEmulator, urlSecret: string): PspSourceOptions {
  const c = emulator.credentials;
  const text = (name: string) => c[name] ?? '';
  switch (emulator.profile) {
    case 'mercado-pago':
      return { psp: 'mercado-pago', secret: text('secret'), accessToken: text('accessToken'), apiBaseUrl: emulator.url };
    case 'asaas':
      return { psp: 'asaas', token: text('token'), apiKey: text('apiKey'), apiBaseUrl: emulator.url };
    case 'pagbank':
      return { psp: 'pagbank', token: text('token') };
    case 'woovi':
      return { psp: 'woovi', publicKeys: [text('publicKey')] };
    case 'pagarme':
      return { psp: 'pagarme', secretKey: text('secretKey'), urlSecret: { secret: urlSecret }, apiBaseUrl: emulator.url };
  }
}

/**
 * `pixhook dev --profile <psp>`: the PSP's emulator, `createPspReceiver` for it at `/webhooks/<psp>` on the
 * console's port (its webhook registered there; Pagar.me's URL carries a secret made for the run), a memory
 * book expecting each charge, the journal and the console with its sandbox page and Pay button.
 */
export async function runPspDev(input: {
  psp: PspProfileName;
  port: number;
  register: ((processing: Processing) => Promise<void>) | undefined;
  handlersName: string | undefined;
}): Promise<void> {
  const emulator = await startEmulator({ profile: input.psp, timeFactor: 0.01 });
  const closers: (() => Promise<unknown>)[] = [() => emulator.close()];
  try {
    const urlSecret = randomBytes(16).toString('hex');
    const book = memoryPaymentBook();
    const journal = memoryJournal({ max: 5000 });
    const quarantine = memoryQuarantine();
    const receiver = createPspReceiver({ ...receiverOptions(emulator, urlSecret), book, quarantine, journal, logger: stderrLogger });
    closers.push(() => receiver.close());
    if (input.register) await input.register(internalsOf(receiver).processing);
    else receiver.onAny((event, context) => void process.stdout.write(`${jsonText(eventLine(event, context))}\n`));
    const webhookPath = `/webhooks/${input.psp}`;
    const expect = (id: string, amountInCents: number) => book.expect({ id, amountInCents });
    const dev = await serveDev({
      receiver,
      port: input.port,
      webhookPaths: [webhookPath],
      console: createConsole({ journal, book, quarantine, receiver, logger: stderrLogger, sandbox: devPspSandbox({ emulator, expect }) }),
    });
    closers.push(() => dev.close());
    const query = input.psp === 'pagarme' ? `?secret=${urlSecret}` : '';
    emulator.setWebhookUrl(`http://127.0.0.1:${dev.port}${webhookPath}${query}`);
    const handling = input.handlersName === undefined ? 'printing each event' : `running ${jsonText(input.handlersName)}`;
    const signalled = untilSignal();
    process.stdout.write(
      [
        `pixhook dev: ${input.psp} emulator at ${emulator.url} (controls under /_emulator; retries at 1/100 of the PSP's waits)`,
        `pixhook dev: receiver at http://127.0.0.1:${dev.port}${webhookPath}, ${handling}`,
        `pixhook dev: console, open it in a browser:`,
        dev.url,
        '',
      ].join('\n'),
    );
    await signalled;
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}
