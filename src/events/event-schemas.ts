import { z } from 'zod';

// Integer cents: never a string, a fraction, a negative or an unsafe integer.
const cents = z.int().nonnegative();
const id = z.string().min(1);
const text = z.string();

const payerInfo = z.object({
  name: text.optional(),
  document: text.optional(),
  bank: text.optional(),
  branch: text.optional(),
  account_type: text.optional(),
  account_number: text.optional(),
});

const refund = z.object({
  amount: cents.optional(),
  amountInCents: cents.optional(),
  reason: text.optional(),
  refundedAt: text.optional(),
});

const customer = z.object({
  name: text.optional(),
  email: text.optional(),
  document: text.optional(),
});

// Variant A: `{ event, timestamp, data{…} }`.
export const variantATransactionSchema = z.object({
  event: text,
  timestamp: text.optional(),
  data: z.object({
    id,
    status: text,
    amountInCents: cents,
    netAmountInCents: cents.optional(),
    customer: customer.optional(),
    endToEndId: text.optional(),
    refund: refund.optional(),
  }),
});

// Transfers in A carry either the webhook's `amountInCents` or the resource's `amount` (both cents).
export const variantATransferSchema = z.object({
  event: text,
  timestamp: text.optional(),
  data: z
    .object({
      id,
      status: text,
      amountInCents: cents.optional(),
      amount: cents.optional(),
      netAmountInCents: cents.optional(),
      netAmount: cents.optional(),
      fees: cents.optional(),
      pixKey: text.optional(),
      endToEndId: text.optional(),
    })
    .refine((data) => data.amountInCents !== undefined || data.amount !== undefined, {
      message: 'Invalid input: expected amountInCents or amount (integer cents)',
      path: ['amountInCents'],
    }),
});

// Variant B and its short form: `{ id, type, event, scope?, transaction{…} }`; `amount` is cents.
export const variantBTransactionSchema = z.object({
  id: text.optional(),
  type: z.literal('transaction').optional(),
  event: text,
  scope: text.optional(),
  transaction: z.object({
    id,
    amount: cents,
    status: text,
    pix: z.object({ endToEndId: text.optional(), payerInfo: payerInfo.optional() }).optional(),
    refund: refund.optional(),
  }),
});

export const variantBTransferSchema = z.object({
  id: text.optional(),
  type: z.literal('transfer').optional(),
  event: text,
  scope: text.optional(),
  transfer: z.object({
    id,
    amount: cents,
    status: text,
    fees: cents.optional(),
    pixKey: text.optional(),
    pix: z
      .object({ endToEndId: text.optional(), creditorAccount: z.record(z.string(), z.unknown()).optional() })
      .optional(),
  }),
});

export type VariantATransaction = z.infer<typeof variantATransactionSchema>;
export type VariantATransfer = z.infer<typeof variantATransferSchema>;
export type VariantBTransaction = z.infer<typeof variantBTransactionSchema>;
export type VariantBTransfer = z.infer<typeof variantBTransferSchema>;
