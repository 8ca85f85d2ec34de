import type { ConsoleSandbox, SandboxCharge } from '../../src/console/index.js';
import { buildEmvCode, qrPngDataUri, type PspEmulator } from '../../src/emulator/index.js';
import { newestFirst, sandboxFaultControls } from './dev-sandbox-faults.js';

/**
 * The sandbox page's controls under `pixhook dev --profile <psp>`: the PSP's emulator creates charges (each
 * expected in the book), pays them (another amount is a mismatch the book holds) and makes its webhook
 * deliveries fail. Expiring, refunding and disputes are not played by the PSP profiles: those buttons say so.
 */
export function devPspSandbox(input: {
  emulator: PspEmulator;
  expect: (id: string, amountInCents: number) => Promise<void>;
}): ConsoleSandbox {
  const { emulator } = input;
  const codes = new Map<string, { emv: string; qrCode: string }>();
  const notPlayed = async () => `The ${emulator.profile} profile plays payments only: use the gateway profile for this.`;

  return {
    async charges(): Promise<SandboxCharge[]> {
      return newestFirst(emulator.charges()).map((c) => ({
        id: c.id,
        status: c.status,
        amountInCents: c.amountInCents,
        createdAt: c.createdAt,
        emv: '',
        qrCode: '',
        ...codes.get(c.id),
      }));
    },
    async deliveries() {
      return newestFirst(emulator.deliveries()).map((d) => ({
        id: d.id,
        event: d.kind,
        resourceId: d.chargeId,
        state: d.state,
        body: d.body,
        attempts: d.attempts.map((a, i) => ({
          attempt: i + 1,
          at: a.at,
          ...(a.status !== 0 && { status: a.status }),
          ...(a.error !== undefined && { error: a.error }),
        })),
      }));
    },
    async createCharge({ amountInCents }) {
      const charge = emulator.createCharge({ amountInCents });
      const emv = buildEmvCode({
        pixKey: 'pixhook-dev@example.com',
        amountInCents,
        merchantName: 'PIXHOOK DEV',
        merchantCity: 'SAO PAULO',
        txid: charge.id.replace(/[^A-Za-z0-9]/g, '').slice(0, 25),
      });
      codes.set(charge.id, { emv, qrCode: await qrPngDataUri(emv) });
      await input.expect(charge.id, amountInCents);
      return `Created ${emulator.profile} charge ${charge.id} (expected in the book): Pay it, and watch its webhook arrive below.`;
    },
    async pay(id, { amountInCents }) {
      await emulator.pay(id, amountInCents === undefined ? {} : { amountInCents });
      return `Paid ${id}${amountInCents === undefined ? '' : ` with ${amountInCents} cents`}; ${emulator.profile} sends its webhook.`;
    },
    expire: notPlayed,
    refund: notPlayed,
    dispute: notPlayed,
    ...sandboxFaultControls(
      { inject: emulator.injectDeliveryFault, clear: emulator.clearDeliveryFaults, list: emulator.deliveryFaultsInForce },
      'webhooks',
    ),
  };
}
