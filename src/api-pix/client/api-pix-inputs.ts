import { z } from 'zod';
import { maxAmountInCents } from './decimal-amount.js';

// Inputs are checked before anything leaves, with the standard's own patterns, so a PSP never sees (and never
// half-applies) a request it would refuse.

const digitsOf = (value: string) => value.replace(/[.\-/\s]/g, '');

const txidForCreate = z.string().regex(/^[a-zA-Z0-9]{26,35}$/, 'expected a txid of 26 to 35 letters and digits');
export const txidToRead = z.string().regex(/^[a-zA-Z0-9]{1,35}$/, 'expected a txid of 1 to 35 letters and digits');
// The spec's pattern is 32 characters, but its own examples carry 34: read any length up to 35.
export const endToEndIdSchema = z.string().regex(/^[a-zA-Z0-9]{1,35}$/, 'expected an endToEndId of letters and digits');
export const refundIdSchema = z.string().regex(/^[a-zA-Z0-9]{1,35}$/, 'expected a refund id of 1 to 35 letters and digits');
export const keySchema = z.string().min(1).max(77);
const cpf = z
  .string()
  .transform(digitsOf)
  .pipe(z.string().regex(/^\d{11}$/, 'expected a CPF of 11 digits'));
const cnpj = z
  .string()
  .transform((value) => digitsOf(value).toUpperCase())
  .pipe(z.string().regex(/^[0-9A-Z]{14}$/, 'expected a CNPJ of 14 characters'));
export const amountInCents = z.int().min(1).max(maxAmountInCents);

const payerSchema = z.union([
  z.strictObject({ cpf, name: z.string().min(1).max(200) }),
  z.strictObject({ cnpj, name: z.string().min(1).max(200) }),
]);

const additionalInfo = z.array(z.strictObject({ name: z.string().min(1).max(50), value: z.string().min(1).max(200) })).max(50);

export const createChargeInputSchema = z.strictObject({
  /** Omitted: `POST /cob` and the PSP chooses it. */
  txid: txidForCreate.optional(),
  amountInCents,
  /** Seconds from creation. Default 3600 (the standard's default). */
  expiresInSeconds: z.int().min(1).max(2_147_483_647).optional(),
  payer: payerSchema.optional(),
  key: keySchema.optional(),
  payerRequest: z.string().max(140).optional(),
  additionalInfo: additionalInfo.optional(),
});

export const createDueChargeInputSchema = z.strictObject({
  txid: txidForCreate,
  amountInCents,
  dueDate: z.iso.date(),
  validAfterDueDays: z.int().min(0).max(3650).optional(),
  payer: payerSchema,
  key: keySchema.optional(),
  payerRequest: z.string().max(140).optional(),
  additionalInfo: additionalInfo.optional(),
});

const moment = z.union([z.date(), z.iso.datetime({ offset: true }), z.number().finite()]).transform((value, ctx) => {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) {
    ctx.addIssue({ code: 'custom', message: 'expected a valid date' });
    return z.NEVER;
  }
  return date.toISOString();
});

export const listPixInputSchema = z
  .strictObject({
    from: moment,
    to: moment,
    txid: txidToRead.optional(),
    cpf: cpf.optional(),
    cnpj: cnpj.optional(),
    /** Items per page (1 to 1000). Default 100. */
    pageSize: z.int().min(1).max(1000).optional(),
  })
  .refine((input) => input.cpf === undefined || input.cnpj === undefined, { message: 'give cpf or cnpj, not both', path: ['cnpj'] })
  .refine((input) => input.from <= input.to, { message: '`from` must not be after `to`', path: ['to'] });

export const refundInputSchema = z.strictObject({
  amountInCents,
  /** `ORIGINAL` (default) or `RETIRADA`. */
  nature: z.enum(['ORIGINAL', 'RETIRADA']).optional(),
  description: z.string().max(140).optional(),
});

export const webhookUrlSchema = z.url({ protocol: /^https$/, error: 'expected an https URL' }).max(512);

/** The payer a charge is addressed to (`devedor`): a CPF or a CNPJ, with a name. */
export type ApiPixPayer = { cpf: string; name: string } | { cnpj: string; name: string };

export interface CreateApiPixChargeInput {
  /** 26 to 35 letters and digits: `PUT /cob/{txid}`. Omitted: `POST /cob`, and the PSP chooses it. */
  txid?: string;
  amountInCents: number;
  /** Seconds from creation. Default 3600 (the standard's default). */
  expiresInSeconds?: number;
  payer?: ApiPixPayer;
  /** The receiving key. Default: the client's `pixKey`. */
  key?: string;
  /** `solicitacaoPagador`: a text shown to the payer (at most 140 characters). */
  payerRequest?: string;
  additionalInfo?: { name: string; value: string }[];
}

export interface CreateApiPixDueChargeInput {
  txid: string;
  amountInCents: number;
  /** `YYYY-MM-DD`. */
  dueDate: string;
  /** Days it can still be paid after the due date. Default 30 (the standard's default). */
  validAfterDueDays?: number;
  payer: ApiPixPayer;
  key?: string;
  payerRequest?: string;
  additionalInfo?: { name: string; value: string }[];
}

export interface ListPixInput {
  /** Start of the window (inclusive): a Date, an ISO 8601 string with offset, or epoch milliseconds. */
  from: Date | string | number;
  /** End of the window (inclusive). */
  to: Date | string | number;
  txid?: string;
  cpf?: string;
  cnpj?: string;
  /** Items per page (1 to 1000). Default 100. */
  pageSize?: number;
}

export interface ApiPixRefundOptions {
  /** `ORIGINAL` (default) or `RETIRADA`. */
  nature?: 'ORIGINAL' | 'RETIRADA';
  /** Shown to the payer (at most 140 characters). */
  description?: string;
}
