import type { ConsoleSandbox, SandboxCharge } from '../../src/console/index.js';
import { buildEmvCode, qrPngDataUri, type PspEmulator } from '../../src/emulator/index.js';
import { newestFirst, sandboxFaultControls } from './dev-sandbox-faults.js';

/**
 * The sandbox page's controls under `pixhook dev --profile <psp>`: the PSP's emulator creates charges (each
 * expected in the book), pays them (another amount is a mismatch the book holds), plays the PSP's faults
 * around a payment (its webhook twice, a late `pending`, its confirmation read failing once) and makes its
 * webhook deliveries fail. Refunds and disputes where the profile plays them (`emulator.plays`); expiring, and
 * what a profile does not play, the buttons say so.
 */
export function devPspSandbox(input: {
  emulator: PspEmulator;
  expect: (id: string, amountInCents: number) => Promise<void>;
}): ConsoleSandbox {
  const { emulator } = input;
  const codes = new Map<string, { emv: string; qrCode: string }>();
  const fetches = emulator.profile === 'mercado-pago' || emulator.profile === 'pagarme' || emulator.profile === 'asaas';
  const notPlayed = async () => `The ${emulator.profile} profile does not play this: use the gateway profile for it.`;

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
    paymentFaults: [
      { name: 'duplicate', label: 'Pay, webhook sent twice' },
      { name: 'late-pending', label: 'Pay, then a late pending' },
      // Where the webhook is only a hint (Mercado Pago, Pagar.me; Asaas confirms too under pixhook dev).
      ...(fetches ? [{ name: 'fetch-failure', label: 'Pay, its confirmation read failing once' }] : []),
    ],
    async playPaymentFault(id, name) {
      if (name === 'fetch-failure') {
        emulator.injectFetchFault({ status: 503, times: 1 });
        await emulator.pay(id);
        return `Paid ${id}; ${emulator.profile}'s API answers the receiver's first read 503 (answered 503 gateway_unavailable), the retry reads it.`;
      }
      await emulator.pay(id, name === 'duplicate' ? { duplicate: true } : { latePending: true });
      return name === 'duplicate'
        ? `Paid ${id}; ${emulator.profile} sends its webhook twice (the second is a duplicate: the handler runs once).`
        : `Paid ${id}; ${emulator.profile} then sends a late pending (it neither runs again nor undoes the payment).`;
    },
    expire: notPlayed,
    async refund(id) {
      if (!emulator.plays.includes('refund')) return notPlayed();
      await emulator.refund(id);
      return `Refunded ${id}; ${emulator.profile} sends its refund webhook.`;
    },
    async dispute(id) {
      if (!emulator.plays.includes('dispute')) return notPlayed();
      await emulator.dispute(id);
      return `Disputed ${id}; ${emulator.profile} sends its ${emulator.profile === 'woovi' ? 'DISPUTE_CREATED' : 'chargeback'} webhook.`;
    },
    ...sandboxFaultControls(
      { inject: emulator.injectDeliveryFault, clear: emulator.clearDeliveryFaults, list: emulator.deliveryFaultsInForce },
      'webhooks',
    ),
  };
}
