import { z } from 'zod';
import { pixKeyTypes, type PixKeyType } from './pix-key.js';

const httpUrl = z.url({ protocol: /^https?$/, hostname: z.regexes.hostname });

export const sendTransferInputSchema = z.object({
  pixKey: z.string().min(1),
  pixKeyType: z.enum(pixKeyTypes).optional(),
  amountInCents: z.int().min(1),
  currency: z.literal('BRL').optional(),
  description: z.string().max(140).optional(),
  postbackUrl: httpUrl.optional(),
  idempotencyKey: z.string().min(1).max(255).optional(),
});

export interface SendTransferInput {
  /** CPF, CNPJ, e-mail, phone (E.164, `+55…`) or random key (UUID). */
  pixKey: string;
  /** Inferred from the key when omitted; checked against it when given. */
  pixKeyType?: PixKeyType;
  /** Integer cents, at least 1. */
  amountInCents: number;
  /** Only `BRL`. */
  currency?: 'BRL';
  /** At most 140 characters. */
  description?: string;
  /** Receives this transfer's status notifications. */
  postbackUrl?: string;
  /** Generated per call (a UUID) when omitted; reused on every retry of the call. */
  idempotencyKey?: string;
}

export const transferResponseSchema = z.object({
  success: z.boolean().optional(),
  message: z.string().optional(),
  data: z
    .looseObject({
      id: z.string().min(1),
      status: z.string(),
      amount: z.int().nonnegative().optional(),
      amountInCents: z.int().nonnegative().optional(),
      netAmount: z.int().nonnegative().optional(),
      fees: z.int().nonnegative().optional(),
      pixKey: z.string().optional(),
    })
    .refine((d) => d.amount !== undefined || d.amountInCents !== undefined, {
      message: 'expected amount (Variant A) or amountInCents (Variant B)',
      path: ['amount'],
    }),
});

/** A transfer as the gateway reports it, either variant read into one shape. All amounts in cents. */
export interface TransferResult {
  id: string;
  /** `queued` on creation, then `processing`, `completed`, `canceled` or `refused`. */
  status: string;
  amountInCents: number;
  netAmountInCents: number | undefined;
  feesInCents: number | undefined;
  pixKey: string | undefined;
  /** The key the call was sent with (generated or given): keep it to repeat the call safely. */
  idempotencyKey: string;
}
