import type { PaymentBook } from '../../src/index.js';
import type { PixClient } from '../../src/client/index.js';
import type { ConsoleSandbox } from '../../src/console/index.js';
import type { Emulator } from '../../src/emulator/index.js';
import { CommandFailure } from './cli-args.js';
import { newestFirst, sandboxFaultControls } from './dev-sandbox-faults.js';

const customer = {
  name: 'Ana Souza',
  email: 'ana@example.com.br',
  documentType: 'cpf' as const,
  document: '52998224725',
  phone: '11999998888',
};

interface EmulatorAnswer {
  success?: boolean;
  data?: { amountInCents?: number; requestedAmountInCents?: number; status?: string };
  message?: string;
  error?: string | { message?: string };
}

/**
 * The sandbox page's controls under `pixhook dev`: the client creates charges and transfers on the
 * emulator (their postbacks go to the receiver), and the emulator's own `/_emulator` endpoints pay,
 * expire, refund and dispute them and inject delivery faults.
 */
export function devSandbox(input: {
  emulator: Emulator;
  client: PixClient;
  book: PaymentBook;
  /** The receiver's URL (known once the server listens). */
  webhookUrl: () => string;
  /** Runs the reconciler now; absent when there is none to run (`--forward-to`). */
  reconcile?: () => Promise<string>;
  /** "Run again": absent without `--handlers` (nothing of yours to run). */
  rerun?: ConsoleSandbox['rerun'];
}): ConsoleSandbox {
  const { emulator, client, book, webhookUrl } = input;
  const qrCodes = new Map<string, string>();

  async function control(path: string, body: unknown): Promise<EmulatorAnswer> {
    const response = await fetch(`${emulator.url}/_emulator/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
    const answer = (await response.json().catch(() => ({}))) as EmulatorAnswer;
    if (response.status === 404 && /No endpoint/.test(JSON.stringify(answer)))
      throw new CommandFailure('api_error', `this emulator has no /_emulator/${path.split('/').at(-1)} endpoint`);
    if (!response.ok) {
      const message = typeof answer.error === 'object' ? answer.error.message : (answer.message ?? answer.error);
      throw new CommandFailure('api_error', `the emulator answered ${response.status}: ${message ?? 'refused'}`);
    }
    return answer;
  }

  return {
    async charges() {
      return newestFirst(emulator.charges()).map((c) => ({
        id: c.id,
        status: c.status,
        amountInCents: c.amountInCents,
        emv: c.pix.emv,
        qrCode: qrCodes.get(c.id) ?? c.pix.qrCode,
        createdAt: c.createdAt,
      }));
    },
    async transfers() {
      return newestFirst(emulator.transfers()).map((t) => ({
        id: t.id,
        status: t.status,
        amountInCents: t.amountInCents,
        pixKey: t.pixKey,
      }));
    },
    async deliveries() {
      return newestFirst(emulator.deliveries()).map((d) => ({
        id: d.id,
        event: d.event,
        resourceId: d.resourceId,
        state: d.state,
        body: d.body,
        attempts: d.attempts.map((a) => ({
          attempt: a.attempt,
          at: a.at,
          durationMs: a.durationMs,
          ...(a.status !== undefined && { status: a.status }),
          ...(a.error !== undefined && { error: a.error }),
          ...(a.fault !== undefined && { fault: a.fault.action }),
        })),
      }));
    },
    async createCharge({ amountInCents }) {
      const charge = await client.createCharge({ amountInCents, customer, description: 'pixhook dev sandbox', postbackUrl: webhookUrl() });
      qrCodes.set(charge.id, charge.pix.qrCode);
      await book.expect({ id: charge.id, amountInCents, payerDocument: customer.document });
      return `Created charge ${charge.id}: scan its QR code or paste its code, then Pay.`;
    },
    async pay(id, { amountInCents, payerName, payerDocument }) {
      const payer =
        payerName !== undefined || payerDocument !== undefined
          ? { ...(payerName && { name: payerName }), ...(payerDocument && { document: payerDocument }) }
          : undefined;
      const answer = await control(`transactions/${encodeURIComponent(id)}/pay`, {
        ...(amountInCents !== undefined && { amountInCents }),
        ...(payer && { payer }),
      });
      const paid = answer.data?.amountInCents;
      if (amountInCents !== undefined && paid !== amountInCents)
        return `Paid ${id}, but this emulator build paid the charge's own amount: it ignores amountInCents.`;
      return `Paid ${id}; watch its delivery arrive below.`;
    },
    async expire(id) {
      emulator.expire(id);
      return `Expired ${id}.`;
    },
    async refund(id) {
      emulator.refund(id, 'pixhook dev sandbox');
      return `Refunded ${id}.`;
    },
    async dispute(id) {
      await control(`transactions/${encodeURIComponent(id)}/infraction`, { reason: 'fraud' });
      return `Opened a MED dispute on ${id}.`;
    },
    async sendTransfer({ amountInCents, pixKey }) {
      const transfer = await client.sendTransfer({ amountInCents, pixKey, postbackUrl: webhookUrl(), description: 'pixhook dev sandbox' });
      return `Sent transfer ${transfer.id}.`;
    },
    ...sandboxFaultControls(
      { inject: emulator.injectDeliveryFault, clear: () => emulator.clearDeliveryFaults(), list: emulator.deliveryFaults },
      'deliveries',
    ),
    ...(input.reconcile !== undefined && { reconcile: input.reconcile }),
    ...(input.rerun !== undefined && { rerun: input.rerun }),
  };
}
