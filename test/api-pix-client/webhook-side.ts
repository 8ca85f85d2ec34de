import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { createMtlsServer } from '../../adapters/node/index.js';
import { createApiPixReceiver } from '../../src/api-pix/index.js';
import type { Processing } from '../../src/index.js';
import type { ApiPixEmulator } from '../../src/emulator/index.js';

/** The webhook half for the recovery tests: createApiPixReceiver in Express behind mTLS, sharing `processing` with the reconciler. */
export async function startWebhookSide(emulator: ApiPixEmulator, processing: Processing) {
  const pem = (path: string) => readFileSync(path, 'utf8');
  const receiver = createApiPixReceiver({ auth: { mtls: { ca: pem(emulator.certificates.ca) } }, processing });
  const app = express();
  app.use('/webhook', createExpressMiddleware(receiver));
  const server = createMtlsServer(
    { cert: pem(emulator.certificates.serverCert), key: pem(emulator.certificates.serverKey), ca: pem(emulator.certificates.ca) },
    app,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
