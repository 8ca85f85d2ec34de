import { readPixItem } from '../../src/api-pix/index.js';
import type { Processing } from '../../src/index.js';
import type { ApiPixEmulator } from '../../src/emulator/index.js';
import { startMtlsReceiver } from './emulator-setup.js';

/**
 * The webhook half for the recovery tests: an mTLS endpoint that reads each item with pixhook's own standard
 * reader and hands it to the same processing as the reconciler (the full receiver is tested on its own branch).
 */
export async function startWebhookSide(emulator: ApiPixEmulator, processing: Processing) {
  const pending: Promise<unknown>[] = [];
  const receiver = await startMtlsReceiver(emulator, (call) => {
    const body = call.body as { pix?: unknown[] } | unknown[];
    const items = Array.isArray(body) ? body : (body.pix ?? []);
    for (const item of items) for (const event of readPixItem(item, '', 'webhook').events) pending.push(processing.accept(event));
    return 200;
  });
  return { ...receiver, settled: () => Promise.all(pending) };
}
