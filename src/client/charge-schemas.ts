import { z } from 'zod';
import { isValidCnpj, isValidCpf } from '../shared/brazilian-documents.js';
import type { ChargeWatchStatus } from './watch-charge.js';
import type { ChargeExpectStatus } from './expect-charge.js';

const httpUrl = z.url({ protocol: /^https?$/, hostname: z.regexes.hostname });

export const addressSchema = z.object({
  street: z.string().min(1),
  number: z.string().min(1),
  neighborhood: z.string().min(1),
  city: z.string().min(1),
  state: z.string().regex(/^[A-Z]{2}$/, 'expected a two-letter state abbreviation (e.g. SP)'),
  zipCode: z.string().regex(/^\d{8}$/, 'expected the 8 digits of the CEP'),
});

export const itemSchema = z.object({
  title: z.string().min(1),
  tangible: z.boolean().optional(),
  quantity: z.int().min(1),
  amountInCents: z.int().nonnegative(),
});

interface ChargeRules {
  /** 100 in Variant A; Variant B allows 1. */
  minAmountInCents: number;
  /** Variant A requires the customer's phone. */
  requirePhone: boolean;
}

export function customerSchema(rules: ChargeRules) {
  const phone = z.string().regex(/^\+?\d{10,13}$/, 'expected a phone with area code, digits only');
  return z
    .object({
      name: z.string().min(1),
      email: z.email(),
      documentType: z.enum(['cpf', 'cnpj']),
      document: z.string(),
      phone: rules.requirePhone ? phone : phone.optional(),
      billingAddress: addressSchema.optional(),
    })
    .superRefine((customer, ctx) => {
      const valid = customer.documentType === 'cpf' ? isValidCpf(customer.document) : isValidCnpj(customer.document);
      if (!valid) {
        const size = customer.documentType === 'cpf' ? 11 : 14;
        ctx.addIssue({
          code: 'custom',
          path: ['document'],
          message: `not a valid ${customer.documentType.toUpperCase()}: expected ${size} digits with valid check digits`,
        });
      }
    });
}

export function createChargeInputSchema(rules: ChargeRules) {
  return z.object({
    amountInCents: z.int().min(rules.minAmountInCents),
    customer: customerSchema(rules),
    description: z.string().max(140).optional(),
    postbackUrl: httpUrl.optional(),
    items: z.array(itemSchema).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  });
}

export interface Address {
  street: string;
  number: string;
  neighborhood: string;
  city: string;
  state: string;
  zipCode: string;
}

export interface ChargeItem {
  title: string;
  tangible?: boolean;
  /** Minimum 1. */
  quantity: number;
  /** The item's total (quantity × unit price), in cents. */
  amountInCents: number;
}

export interface ChargeCustomer {
  name: string;
  email: string;
  documentType: 'cpf' | 'cnpj';
  /** Digits only; check digits are validated. */
  document: string;
  /** Required in Variant A. */
  phone?: string;
  billingAddress?: Address;
}

export interface CreateChargeInput {
  /** Integer cents; at least `minChargeAmountInCents` (100 by default). */
  amountInCents: number;
  customer: ChargeCustomer;
  /** At most 140 characters; shown on the payer's statement. */
  description?: string;
  /** Receives this charge's events. */
  postbackUrl?: string;
  items?: ChargeItem[];
  metadata?: Record<string, unknown>;
}

export const chargeResponseSchema = z.object({
  success: z.boolean().optional(),
  message: z.string().optional(),
  data: z.looseObject({
    id: z.string().min(1),
    status: z.string(),
    fees: z.int().nonnegative().optional(),
    pix: z.looseObject({ emv: z.string().min(1), qrCode: z.string().min(1) }),
  }),
});

/** A charge as created: pay it with `pix.emv` (copy and paste) or `pix.qrCode` (PNG, Base64 or data URI). */
export interface Charge {
  id: string;
  /** Always `pending` on creation. */
  status: string;
  feesInCents: number | undefined;
  pix: { emv: string; qrCode: string };
  /** Only with `createClient({ watch })`: whether the charge was handed to the watcher (see `ChargeWatchStatus`). */
  watch?: ChargeWatchStatus;
  /** Only with `createClient({ book })`: whether the book recorded what this charge must look like when paid. */
  expected?: ChargeExpectStatus;
}
