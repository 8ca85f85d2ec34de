import { describe, expect, it } from 'vitest';
import { PixhookConfigError } from '../../src/index.js';
import { startEmulator } from '../../src/emulator/index.js';
import { clientFor, startApiPix, txid } from './emulator-setup.js';

// `onRequest`: what `pixhook emulator --profile api-pix` prints its request lines from (issue 37: it printed none).
describe('the API Pix emulator: onRequest', () => {
  it('is told of each request answered, in order, with its status; a listener that throws changes no answer', async () => {
    const seen: string[] = [];
    const emulator = await startApiPix({
      onRequest: (entry) => {
        seen.push(`${entry.method} ${entry.path} ${entry.status}`);
        throw new Error('a broken listener');
      },
    });
    const client = clientFor(emulator);
    try {
      const charge = await client.createCharge({ txid: txid('onreq'), amountInCents: 100 });
      expect(charge.txid).toBe(txid('onreq'));
      expect(seen).toEqual(['POST /oauth/token 200', `PUT /cob/${txid('onreq')} 201`]);
      expect(emulator.requests().map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(seen);
    } finally {
      client.close();
      await emulator.close();
    }
  });

  it('a value that is not a function is refused where the emulator is made', async () => {
    await expect(startEmulator({ profile: 'api-pix', onRequest: 'print' as never })).rejects.toThrow(PixhookConfigError);
    await expect(startEmulator({ profile: 'api-pix', onRequest: 'print' as never })).rejects.toThrow(/`onRequest` must be a function/);
  });
});
