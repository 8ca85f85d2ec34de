import { z } from 'zod';
import { mustBe } from '../shared/option-checks.js';
import type { DeliveryFault } from './delivery-faults.js';
import type { EmulatorPayment } from './gateway-state.js';
import { RequestError, parseJsonBody } from './http-io.js';

// The bodies of the emulator-only controls (and the delivery faults also given in the options).

export const payBodySchema = z
  .object({
    payer: z
      .object({
        name: z.string().optional(),
        document: z.string().optional(),
        bank: z.string().optional(),
        branch: z.string().optional(),
        accountType: z.string().optional(),
        accountNumber: z.string().optional(),
      })
      .optional(),
    amountInCents: z.int().min(1).optional(),
    reason: z.string().max(140).optional(),
  })
  .optional();

export const infractionBodySchema = z
  .object({
    id: z.string().min(1).max(100).optional(),
    status: z.string().min(1).max(40).optional(),
    reason: z.string().min(1).max(140).optional(),
    amountInCents: z.int().min(1).optional(),
    openedAt: z.iso.datetime({ offset: true }).optional(),
  })
  .optional();

export const deliveryFaultSchema = z
  .strictObject({
    url: z.string().min(1).optional(),
    action: z.enum(['fail', 'timeout', 'drop', 'delay']),
    status: z.int().min(100).max(599).optional(),
    delayMs: z.int().min(1).max(86_400_000).optional(),
    times: z.int().min(1).optional(),
    forMs: z.number().positive().optional(),
  })
  .refine((fault) => (fault.action === 'delay') === (fault.delayMs !== undefined), {
    message: 'delayMs goes with action "delay", and "delay" needs delayMs',
    path: ['delayMs'],
  });

/** A delivery fault given in the options or to `injectDeliveryFault`, refused naming the wrong field. */
export function checkDeliveryFault(name: string, fault: DeliveryFault): DeliveryFault {
  const parsed = deliveryFaultSchema.safeParse(fault);
  if (parsed.success) return fault;
  const issue = parsed.error.issues[0];
  const path = (issue?.path ?? []).map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
  const given = (issue?.path ?? []).reduce<unknown>(
    (value, key) => (typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined),
    fault,
  );
  throw mustBe(
    `${name}${path}`,
    `a delivery fault { action: "fail", "timeout", "drop" or "delay", url?, status? (100 to 599), delayMs? (with "delay", 1 to 86400000), times? (from 1), forMs? (over 0) } (${issue?.message ?? 'invalid'})`,
    given,
  );
}

export const faultSchema = z.object({
  method: z.string().optional(),
  path: z.string().startsWith('/'),
  action: z.enum(['drop-response', 'drop-request', 'status']),
  status: z.int().min(400).max(599).optional(),
  times: z.int().min(1).optional(),
});

/** An optional JSON control body checked by `schema`: a 400 names the first wrong field. */
export function optionalJson<S extends z.ZodType>(bytes: Buffer, schema: S = payBodySchema as unknown as S): z.infer<S> | undefined {
  if (bytes.length === 0) return undefined;
  const parsed = schema.safeParse(parseJsonBody(bytes));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
    throw new RequestError(400, 'INVALID_REQUEST', `${where}${issue?.message ?? 'invalid body'}`);
  }
  return parsed.data as z.infer<S>;
}

/** The pay body as `pay` takes it: `{ amountInCents?, payer? }`. */
export function paymentFrom(bytes: Buffer): EmulatorPayment {
  const body = optionalJson(bytes, payBodySchema);
  return { ...(body?.amountInCents !== undefined && { amountInCents: body.amountInCents }), ...(body?.payer && { payer: body.payer }) };
}
