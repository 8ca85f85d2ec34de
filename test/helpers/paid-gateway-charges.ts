import { createClient } from '../../src/client/index.js';
import { startEmulator, type Emulator } from '../../src/emulator/index.js';
import { customer } from './customer.js';

/**
 * A gateway emulator with one paid charge per amount, created by an app's client that watches each in `watch`;
 * `env` is what `pixhook reconcile` reads to reach it. Close the emulator when done.
 */
export async function paidGatewayCharges(
  amounts: number[],
  watch?: { watch(id: string, createdAt?: number): unknown },
): Promise<{ emulator: Emulator; ids: string[]; env: Record<string, string> }> {
  const emulator = await startEmulator({ retry: { backoff: { delayMs: 1 } } });
  const pix = createClient({ ...emulator.credentials, baseUrl: emulator.url, ...(watch && { watch }) });
  const ids: string[] = [];
  try {
    for (const amountInCents of amounts) {
      const charge = await pix.createCharge({ amountInCents, customer });
      emulator.pay(charge.id);
      ids.push(charge.id);
    }
  } catch (error) {
    await emulator.close();
    throw error;
  }
  const env = {
    PIXHOOK_API_KEY: emulator.credentials.apiKey,
    PIXHOOK_API_SECRET: emulator.credentials.apiSecret,
    PIXHOOK_BASE_URL: emulator.url,
  };
  return { emulator, ids, env };
}
