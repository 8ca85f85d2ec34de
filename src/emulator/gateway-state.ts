import type { z } from 'zod';
import type { PixEventName, PixInfraction, PixPayer } from '../index.js';
import { generateEndToEndId, pixParticipants, type PayloadOptions } from '../testing/index.js';
import type { ResolvedEmulatorOptions } from './emulator-options.js';
import type { ChargePayment, ChargeRecord, ChargeStatus, TransferRecord, WebhookRecord } from './emulator-records.js';
import { buildEmvCode } from './emv-code.js';
import { RequestError } from './http-io.js';
import { qrPngDataUri } from './qr-png.js';
import { chargeRequestSchema, readPixKey, transferRequestSchema, webhookRequestSchema } from './request-schemas.js';
import type { DispatchTarget, createWebhookDispatcher } from './webhook-dispatcher.js';

/** What `pay` takes: a payment of another amount than the charge's, or by another payer. */
export interface EmulatorPayment {
  /** Default: the charge's amount. A dynamic QR paid with another amount (some PSPs accept it). */
  amountInCents?: number;
  /** Default: the charge's customer, at a test bank. */
  payer?: PixPayer;
}

/** What `infraction` takes: the MED dispute's details (an id and `openedAt` are generated when left out). */
export type EmulatorInfraction = PixInfraction;

// A charge can be paid while pending, again when paid (a duplicate payment), or after it expired.
const payableStatuses: ReadonlySet<ChargeStatus> = new Set(['pending', 'paid', 'expired', 'canceled']);

/** Transfers to this key are refused (queued → processing → refused); every other valid key completes. */
export const emulatorRefusedPixKey = 'refused@pixhook.dev';

/** The emulated merchant: the receiving key in every EMV code, and the company `/api/v1/company` returns. */
export const emulatorCompany = {
  id: 'cmp_emulator',
  name: 'Pixhook Emulador Pagamentos Ltda',
  document: '11222333000181',
  fantasyName: 'Pixhook Emulator',
  status: 'active',
  pixKey: '7d9f0335-8dcc-4054-9bf9-0dbd61d36906',
  city: 'Sao Paulo',
} as const;

export const emulatorSellers = [{ id: 'slr_emulator_1', name: 'Loja Emuladora', email: 'loja@pixhook.dev', document: '52998224725' }];

type Dispatcher = ReturnType<typeof createWebhookDispatcher>;

function invalid(error: z.ZodError): RequestError {
  const issues = error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message }));
  const first = issues[0] as { path: string; message: string };
  return new RequestError(400, 'INVALID_REQUEST', `${first.path}: ${first.message}`, { field: first.path, issues });
}

function idFor(prefix: string): string {
  return `${prefix}_${globalThis.crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`;
}

/** The gateway's in-memory state and its documented rules. Handlers return bodies; errors are `RequestError`s. */
export function createGatewayState(options: ResolvedEmulatorOptions, dispatcher: Dispatcher) {
  const charges = new Map<string, ChargeRecord>();
  const transfers = new Map<string, TransferRecord>();
  const webhooks = new Map<string, WebhookRecord>();
  const idempotent = new Map<string, { fingerprint: string; body: unknown }>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const iso = () => new Date(options.now()).toISOString();
  // Structure first (400), then the amount rule (422), as the interface separates them.
  const chargeSchema = chargeRequestSchema(options.variant);

  function targets(event: PixEventName, postbackUrl: string | undefined): DispatchTarget[] {
    const out: DispatchTarget[] = [...webhooks.values()]
      .filter((w) => w.events.includes(event))
      .map((webhook) => ({ url: webhook.url, scope: 'user' as const, webhook }));
    if (postbackUrl) out.push({ url: postbackUrl, scope: 'postback' });
    return out;
  }

  function emitCharge(event: PixEventName, charge: ChargeRecord, infraction?: PixInfraction): void {
    const payload: PayloadOptions = {
      amountInCents: charge.amountInCents,
      status: charge.status,
      feesInCents: charge.fees,
      netAmountInCents: charge.netAmountInCents,
      customer: { name: charge.customer.name, email: charge.customer.email, document: charge.customer.document },
      ...(charge.pix.endToEndId && { endToEndId: charge.pix.endToEndId }),
      ...(charge.pix.payerInfo && { payer: charge.pix.payerInfo }),
      ...(charge.refund && { refund: charge.refund }),
      ...(infraction && { infraction }),
    };
    dispatcher.dispatch(event, charge.id, targets(event, charge.postbackUrl), payload);
  }

  function emitTransfer(event: PixEventName, transfer: TransferRecord): void {
    const payload: PayloadOptions = {
      amountInCents: transfer.amountInCents,
      status: transfer.status,
      feesInCents: transfer.fees,
      netAmountInCents: transfer.netAmountInCents,
      pixKey: transfer.pixKey,
      ...(transfer.endToEndId && { endToEndId: transfer.endToEndId }),
    };
    dispatcher.dispatch(event, transfer.id, targets(event, transfer.postbackUrl), payload);
  }

  function later(step: () => void): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      step();
    }, options.transferStepMs);
    timers.add(timer);
  }

  function progressTransfer(transfer: TransferRecord): void {
    later(() => {
      transfer.status = 'processing';
      transfer.updatedAt = iso();
      emitTransfer('transfer_updated', transfer);
      later(() => {
        transfer.updatedAt = iso();
        if (transfer.pixKey === emulatorRefusedPixKey) {
          transfer.status = 'refused';
          transfer.failureReason = 'The destination key refused the transfer (emulator rule).';
          emitTransfer('transfer_updated', transfer);
        } else {
          transfer.status = 'completed';
          transfer.endToEndId = generateEndToEndId({ ispb: '18236120', at: new Date(options.now()) });
          emitTransfer('transfer_completed', transfer);
        }
      });
    });
  }

  function charge(id: string): ChargeRecord {
    const found = charges.get(id);
    if (!found) throw new RequestError(404, 'NOT_FOUND', `No transaction with id ${id}.`);
    return found;
  }

  function moveCharge(id: string, from: ChargeStatus, to: ChargeStatus): ChargeRecord {
    const found = charge(id);
    if (found.status !== from) {
      throw new RequestError(
        422,
        'INVALID_STATUS_TRANSITION',
        `Transaction ${id} is ${found.status}; only a ${from} transaction can become ${to}.`,
        {
          status: found.status,
        },
      );
    }
    found.status = to;
    found.updatedAt = iso();
    return found;
  }

  function transferView(t: TransferRecord): Record<string, unknown> {
    return options.variant === 'a'
      ? { id: t.id, status: t.status, amount: t.amountInCents, netAmount: t.netAmountInCents, fees: t.fees, pixKey: t.pixKey }
      : { id: t.id, status: t.status, amountInCents: t.amountInCents, fees: t.fees };
  }

  return {
    async createCharge(body: unknown): Promise<unknown> {
      const parsed = chargeSchema.safeParse(body);
      if (!parsed.success) throw invalid(parsed.error);
      const input = parsed.data;
      if (input.amountInCents < options.minChargeAmountInCents) {
        throw new RequestError(422, 'AMOUNT_OUT_OF_LIMITS', `amountInCents must be at least ${options.minChargeAmountInCents}.`, {
          field: 'amountInCents',
          minimum: options.minChargeAmountInCents,
        });
      }
      const id = idFor('txn');
      const emv = buildEmvCode({
        pixKey: emulatorCompany.pixKey,
        amountInCents: input.amountInCents,
        merchantName: emulatorCompany.fantasyName,
        merchantCity: emulatorCompany.city,
        txid: id,
      });
      const fees = Math.round(input.amountInCents * 0.0099);
      const now = iso();
      const record: ChargeRecord = {
        id,
        status: 'pending',
        amountInCents: input.amountInCents,
        fees,
        netAmountInCents: input.amountInCents - fees,
        customer: input.customer,
        pix: { emv, qrCode: await qrPngDataUri(emv) },
        createdAt: now,
        updatedAt: now,
        ...(input.description !== undefined && { description: input.description }),
        ...(input.items && { items: input.items }),
        ...(input.metadata && { metadata: input.metadata }),
        ...(input.postbackUrl && { postbackUrl: input.postbackUrl }),
      };
      charges.set(id, record);
      emitCharge('transaction_created', record);
      return {
        success: true,
        message: 'Charge created.',
        data: { id, status: record.status, amountInCents: record.amountInCents, fees, pix: { emv, qrCode: record.pix.qrCode } },
      };
    },

    sendTransfer(body: unknown, idempotencyKey: string | undefined): { body: unknown; replayed: boolean } {
      if (!idempotencyKey) {
        throw new RequestError(400, 'INVALID_REQUEST', 'The idempotency key header (x-idempotency-key or Idempotency-Key) is required.', {
          field: 'x-idempotency-key',
        });
      }
      const parsed = transferRequestSchema.safeParse(body);
      if (!parsed.success) throw invalid(parsed.error);
      const input = parsed.data;
      const amount = input.amountInCents ?? input.amount;
      if (amount === undefined) {
        throw new RequestError(400, 'INVALID_REQUEST', 'amount: required (amountInCents in Variant B).', { field: 'amount' });
      }
      if (input.amount !== undefined && input.amountInCents !== undefined && input.amount !== input.amountInCents) {
        throw new RequestError(400, 'INVALID_REQUEST', 'amount and amountInCents disagree.', { field: 'amount' });
      }
      if (input.currency !== undefined && input.currency !== 'BRL') {
        throw new RequestError(400, 'INVALID_REQUEST', 'currency: only BRL is accepted.', { field: 'currency' });
      }
      const key = readPixKey(input.pixKey, input.pixKeyType);
      if ('error' in key) throw new RequestError(400, 'INVALID_REQUEST', `pixKey: ${key.error}`, { field: 'pixKey' });
      if (amount < 1) {
        throw new RequestError(422, 'AMOUNT_OUT_OF_LIMITS', 'amount must be at least 1.', { field: 'amount', minimum: 1 });
      }
      const fingerprint = JSON.stringify([key.key, amount, input.description ?? null, input.postbackUrl ?? null]);
      const seen = idempotent.get(idempotencyKey);
      if (seen) {
        if (seen.fingerprint !== fingerprint) {
          throw new RequestError(422, 'IDEMPOTENCY_KEY_REUSED', 'This idempotency key was used for a different transfer.');
        }
        return { body: seen.body, replayed: true };
      }
      const now = iso();
      const record: TransferRecord = {
        id: idFor('trf'),
        status: 'queued',
        amountInCents: amount,
        fees: 0,
        netAmountInCents: amount,
        pixKey: key.key,
        pixKeyType: key.type,
        idempotencyKey,
        createdAt: now,
        updatedAt: now,
        ...(input.description !== undefined && { description: input.description }),
        ...(input.postbackUrl && { postbackUrl: input.postbackUrl }),
      };
      transfers.set(record.id, record);
      const response = { success: true, message: 'Transfer queued.', data: transferView(record) };
      idempotent.set(idempotencyKey, { fingerprint, body: response });
      emitTransfer('transfer_created', record);
      progressTransfer(record);
      return { body: response, replayed: false };
    },

    company(): unknown {
      const { pixKey: _pixKey, city: _city, ...company } = emulatorCompany;
      return { success: true, data: { company, sellers: emulatorSellers } };
    },

    readTransaction(id: string): unknown {
      const found = charges.get(id);
      if (found) return { success: true, type: 'transaction', ...found };
      const transfer = transfers.get(id);
      if (transfer) return { success: true, type: 'transfer', ...transfer };
      throw new RequestError(404, 'NOT_FOUND', `No transaction with id ${id}.`);
    },

    registerWebhook(body: unknown): unknown {
      const parsed = webhookRequestSchema.safeParse(body);
      if (!parsed.success) throw invalid(parsed.error);
      const now = iso();
      const record: WebhookRecord = {
        id: idFor('wh'),
        url: parsed.data.url,
        events: [...new Set(parsed.data.events)],
        status: 'active',
        createdAt: now,
        updatedAt: now,
        totalDeliveries: 0,
        successfulDeliveries: 0,
        successRate: 100,
        averageResponseTimeMs: 0,
      };
      webhooks.set(record.id, record);
      return { success: true, message: 'Webhook registered.', data: record };
    },

    listWebhooks: (): unknown => ({ success: true, data: [...webhooks.values()] }),

    readWebhook(id: string): unknown {
      const found = webhooks.get(id);
      if (!found) throw new RequestError(404, 'NOT_FOUND', `No webhook with id ${id}.`);
      return { success: true, data: found };
    },

    deleteWebhook(id: string): unknown {
      if (!webhooks.delete(id)) throw new RequestError(404, 'NOT_FOUND', `No webhook with id ${id}.`);
      return { success: true, message: 'Webhook deleted.' };
    },

    pay(id: string, payment: EmulatorPayment = {}): ChargeRecord {
      const record = charge(id);
      if (!payableStatuses.has(record.status)) {
        throw new RequestError(422, 'INVALID_STATUS_TRANSITION', `Transaction ${id} is ${record.status}; it can no longer be paid.`, {
          status: record.status,
        });
      }
      const participant = pixParticipants[5];
      const paidWhen = record.status;
      const amount = payment.amountInCents ?? record.amountInCents;
      if (amount !== record.amountInCents) {
        record.requestedAmountInCents ??= record.amountInCents;
        record.amountInCents = amount;
        record.fees = Math.round(amount * 0.0099);
        record.netAmountInCents = amount - record.fees;
      }
      record.status = 'paid';
      record.updatedAt = iso();
      record.paidAt = record.updatedAt;
      // Each payment is its own PIX transfer: a second one has its own endToEndId.
      record.pix.endToEndId = generateEndToEndId({ ispb: participant.ispb, at: new Date(options.now()) });
      record.pix.payerInfo = payment.payer ?? {
        name: record.customer.name,
        document: record.customer.document,
        bank: participant.bank,
        branch: '0001',
        accountType: 'CHECKING',
        accountNumber: '1234567-8',
      };
      const made: ChargePayment = {
        endToEndId: record.pix.endToEndId,
        amountInCents: amount,
        payer: record.pix.payerInfo,
        paidAt: record.paidAt,
        paidWhen,
      };
      record.payments = [...(record.payments ?? []), made];
      emitCharge('transaction_paid', record);
      return record;
    },

    infraction(id: string, details: EmulatorInfraction = {}): ChargeRecord {
      const record = charge(id);
      if (record.status !== 'paid' && record.status !== 'refunded') {
        throw new RequestError(
          422,
          'INVALID_STATUS_TRANSITION',
          `Transaction ${id} is ${record.status}; only a paid charge can be disputed.`,
          {
            status: record.status,
          },
        );
      }
      const infraction: PixInfraction = {
        id: details.id ?? idFor('inf'),
        status: details.status ?? 'open',
        reason: details.reason ?? 'fraud',
        amountInCents: details.amountInCents ?? record.amountInCents,
        openedAt: details.openedAt ?? iso(),
      };
      record.infractions = [...(record.infractions ?? []), infraction];
      record.updatedAt = iso();
      emitCharge('transaction_infraction', record, infraction);
      return record;
    },

    expire(id: string): ChargeRecord {
      // Variant A has no `expired` status: an unpaid charge that lapses is canceled there.
      const record = moveCharge(id, 'pending', options.variant === 'a' ? 'canceled' : 'expired');
      emitCharge('transaction_updated', record);
      return record;
    },

    refund(id: string, reason?: string): ChargeRecord {
      const record = moveCharge(id, 'paid', 'refunded');
      record.refund = {
        amountInCents: record.amountInCents,
        reason: reason ?? 'Refund requested by the merchant',
        refundedAt: record.updatedAt,
      };
      emitCharge('transaction_refunded', record);
      return record;
    },

    charges: (): ChargeRecord[] => [...charges.values()],
    transfers: (): TransferRecord[] => [...transfers.values()],
    webhooks: (): WebhookRecord[] => [...webhooks.values()],

    stop(): void {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
