import { z } from 'zod';

const transactionSchema = z.looseObject({
  id: z.string().min(1),
  status: z.string(),
  amountInCents: z.int().nonnegative().optional(),
  amount: z.int().nonnegative().optional(),
  fees: z.int().nonnegative().optional(),
});

// The interface reads `status` at the top level; an enveloped `data` record is accepted too.
export const transactionResponseSchema = z.union([
  z.looseObject({ data: transactionSchema }).transform((body) => body.data),
  transactionSchema,
]);

/** A transaction read by id. Amounts in cents. */
export interface TransactionRecord {
  id: string;
  /** `pending`, `paid`, `canceled`, `refunded`, `expired` (Variant B), or a status this version does not know. */
  status: string;
  amountInCents: number | undefined;
  feesInCents: number | undefined;
  /** The record as the gateway returned it. */
  raw: Record<string, unknown>;
}

export function transactionFrom(record: z.output<typeof transactionResponseSchema>): TransactionRecord {
  return {
    id: record.id,
    status: record.status,
    amountInCents: record.amountInCents ?? record.amount,
    feesInCents: record.fees,
    raw: record,
  };
}
