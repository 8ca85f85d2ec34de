import { z } from 'zod';
import { pixEventNames } from '../index.js';

const httpUrl = z.url({ protocol: /^https?$/, hostname: z.regexes.hostname });

export const registerWebhookInputSchema = z.object({
  url: httpUrl,
  events: z.array(z.enum(pixEventNames)).min(1),
});

export const webhookIdSchema = z
  .string()
  .min(1)
  .regex(/^[^/?#]+$/, 'expected a webhook id');

const webhookSchema = z.looseObject({
  id: z.string().min(1),
  url: z.string(),
  events: z.array(z.string()).default([]),
  status: z.string().optional(),
  createdAt: z.string().optional(),
});

// The interface does not show these bodies: accept the record enveloped in `data` or bare.
export const webhookResponseSchema = z.union([z.object({ data: webhookSchema }).transform((b) => b.data), webhookSchema]);
export const webhookListResponseSchema = z.union([
  z.object({ data: z.array(webhookSchema) }).transform((b) => b.data),
  z.object({ data: z.object({ webhooks: z.array(webhookSchema) }) }).transform((b) => b.data.webhooks),
  z.object({ webhooks: z.array(webhookSchema) }).transform((b) => b.webhooks),
  z.array(webhookSchema),
]);

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  status?: string | undefined;
  createdAt?: string | undefined;
  /** Every other field the gateway returned (metrics, dates). */
  [field: string]: unknown;
}

export interface RegisterWebhookInput {
  url: string;
  events: readonly (typeof pixEventNames)[number][];
}
