import { z } from 'zod';
import { pixEventNames } from '../index.js';
import { isValidCnpj, isValidCpf } from '../testing/index.js';

// The gateway's side of the interface document, written from its tables and never shared with
// `pixhook/client`: a client bug must not change what the emulated gateway accepts.

const httpUrl = z.url({ protocol: /^https?$/, hostname: z.regexes.hostname });

/** Address (interface: Resources → Address). */
const addressSchema = z.object({
  street: z.string().min(1),
  number: z.string().min(1),
  neighborhood: z.string().min(1),
  city: z.string().min(1),
  state: z.string().regex(/^[A-Z]{2}$/, 'expected a two-letter state abbreviation'),
  zipCode: z.string().regex(/^\d{8}$/, 'expected the postal code digits'),
});

/** Item (interface: Resources → Item): quantity minimum 1, amounts in integer cents. */
const itemSchema = z.object({
  title: z.string().min(1),
  tangible: z.boolean().optional(),
  quantity: z.int().min(1),
  amountInCents: z.int().nonnegative(),
});

/** Customer (interface: Resources → Customer): the phone is required in Variant A only. */
function customerSchema(requirePhone: boolean) {
  const phone = z.string().regex(/^\+?\d{10,13}$/, 'expected a phone with area code');
  return z
    .object({
      name: z.string().min(1),
      email: z.email(),
      documentType: z.enum(['cpf', 'cnpj']),
      document: z.string(),
      phone: requirePhone ? phone : phone.optional(),
      billingAddress: addressSchema.optional(),
    })
    .superRefine((customer, ctx) => {
      // "400 INVALID_REQUEST: wrong CPF/CNPJ" (interface: Errors).
      const valid = customer.documentType === 'cpf' ? isValidCpf(customer.document) : isValidCnpj(customer.document);
      if (!valid) ctx.addIssue({ code: 'custom', path: ['document'], message: `not a valid ${customer.documentType.toUpperCase()}` });
    });
}

/**
 * POST /api/v1/pix/in/qrcode. Structure first (400): the variant's minimum amount is a business
 * rule the gateway answers with 422, so only a non-positive amount fails here.
 */
export function chargeRequestSchema(variant: 'a' | 'b' | 'short') {
  return z.object({
    amountInCents: z.int().min(1),
    customer: customerSchema(variant === 'a'),
    description: z.string().max(140).optional(),
    postbackUrl: httpUrl.optional(),
    items: z.array(itemSchema).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  });
}

type ChargeRequest = z.output<ReturnType<typeof chargeRequestSchema>>;
export type ChargeRequestCustomer = ChargeRequest['customer'];
export type ChargeRequestItem = NonNullable<ChargeRequest['items']>[number];

const emulatorPixKeyTypes = ['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP'] as const;
export type EmulatorPixKeyType = (typeof emulatorPixKeyTypes)[number];

/** POST /api/v1/pix/out/pixkey: Variant A (`amount`, `currency`) and Variant B (`amountInCents`, `pixKeyType`) fields. */
export const transferRequestSchema = z.object({
  pixKey: z.string().min(1),
  pixKeyType: z.enum(emulatorPixKeyTypes).optional(),
  amount: z.int().optional(),
  amountInCents: z.int().optional(),
  currency: z.string().optional(),
  description: z.string().max(140).optional(),
  postbackUrl: httpUrl.optional(),
});

/** POST /api/v1/webhook: a URI and event names from the Events part. */
export const webhookRequestSchema = z.object({ url: httpUrl, events: z.array(z.enum(pixEventNames)).min(1) });

const evp = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const email = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const e164 = /^\+[1-9]\d{9,13}$/;

/**
 * The destination key as the DICT stores it, with its type ("CPF, CNPJ, e-mail, phone or random
 * key"). A given `pixKeyType` must agree with the key.
 */
export function readPixKey(raw: string, given?: EmulatorPixKeyType): { type: EmulatorPixKeyType; key: string } | { error: string } {
  const key = raw.trim();
  const digits = /^[\d.\-/]+$/.test(key) ? key.replace(/\D/g, '') : key;
  const found: { type: EmulatorPixKeyType; key: string } | undefined = evp.test(key)
    ? { type: 'EVP', key: key.toLowerCase() }
    : email.test(key)
      ? { type: 'EMAIL', key: key.toLowerCase() }
      : e164.test(key)
        ? { type: 'PHONE', key }
        : given === 'PHONE' && /^\d{10,11}$/.test(digits)
          ? { type: 'PHONE', key: `+55${digits}` }
          : isValidCpf(digits)
            ? { type: 'CPF', key: digits }
            : isValidCnpj(digits)
              ? { type: 'CNPJ', key: digits }
              : undefined;
  if (!found) return { error: 'not a CPF, CNPJ, e-mail, phone (+55…) or random key' };
  if (given && given !== found.type) return { error: `the key is not a valid ${given} key` };
  return found;
}
