import { z } from 'zod';
import { checkDeliveryFault, optionalJson } from '../control-bodies.js';
import type { DeliveryFault, DeliveryFaults } from '../delivery-faults.js';
import { RequestError } from '../http-io.js';
import type { PspDeliveries } from './psp-deliveries.js';
import type { PspProfile } from './psp-profile.js';
import type { PspState } from './psp-state.js';

const chargeSchema = z.strictObject({
  amountInCents: z.int().min(1),
  payerDocument: z
    .string()
    .regex(/^\d{11,14}$/)
    .optional(),
});
const paySchema = z
  .strictObject({ amountInCents: z.int().min(1).optional(), duplicate: z.boolean().optional(), latePending: z.boolean().optional() })
  .optional();
const webhookSchema = z.strictObject({ url: z.url({ protocol: /^https?$/ }) });
export const fetchFaultSchema = z.strictObject({
  status: z.union([z.literal(429), z.literal(500), z.literal(503)]),
  times: z.int().min(1),
});

/** The confirmation API answers `status` for the next `times` reads (a PSP down or rate-limiting). */
export type PspFetchFault = z.infer<typeof fetchFaultSchema>;

export interface PspControlParts {
  profile: PspProfile;
  state: PspState;
  deliveries: PspDeliveries;
  deliveryFaults: DeliveryFaults;
  fetchFaults: PspFetchFault[];
  setWebhookUrl: (url: string) => void;
}

type Control = {
  method: 'GET' | 'POST' | 'DELETE';
  pattern: RegExp;
  handle(params: string[], body: Buffer): Promise<[number, unknown]> | [number, unknown];
};

function required<T>(value: T | undefined): T {
  if (value === undefined) throw new RequestError(400, 'INVALID_REQUEST', 'A JSON body is required.');
  return value;
}

/** The `/_emulator` controls: charges, the pay button and its faults, the webhook URL, the PSP's faults. */
export function pspControls(parts: PspControlParts): readonly Control[] {
  const { state, deliveries, deliveryFaults, fetchFaults } = parts;
  const extra = (parts.profile.extraControls?.() ?? []).map((route): Control => ({
    method: route.method,
    pattern: new RegExp(`^${route.path}$`),
    handle: () => [200, route.handle()],
  }));
  return [
    { method: 'GET', pattern: /^\/_emulator\/charges$/, handle: () => [200, { data: state.charges() }] },
    {
      method: 'POST',
      pattern: /^\/_emulator\/charges$/,
      handle: (_, body) => [201, state.create(required(optionalJson(body, chargeSchema)))],
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/charges\/([^/]+)\/pay$/,
      handle: async ([id], body) => [200, await state.pay(id as string, optionalJson(body, paySchema))],
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/charges\/([^/]+)\/(refund|dispute)$/,
      handle: async ([id, fact]) => [200, await state.after(id as string, fact as 'refund' | 'dispute')],
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/webhook$/,
      handle: (_, body) => {
        const { url } = required(optionalJson(body, webhookSchema));
        parts.setWebhookUrl(url);
        return [200, { url }];
      },
    },
    {
      method: 'GET',
      pattern: /^\/_emulator\/deliveries$/,
      handle: () => [200, { data: deliveries.deliveries(), paused: deliveries.paused() }],
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/delivery-faults$/,
      handle: (_, body) => [
        201,
        deliveryFaults.add(checkDeliveryFault('fault', required(optionalJson(body, z.unknown())) as DeliveryFault)),
      ],
    },
    {
      method: 'DELETE',
      pattern: /^\/_emulator\/delivery-faults$/,
      handle: () => (deliveryFaults.clear(), [204, undefined]),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/fetch-faults$/,
      handle: (_, body) => {
        const fault = required(optionalJson(body, fetchFaultSchema));
        fetchFaults.push({ ...fault });
        return [201, fault];
      },
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/queue\/resume$/,
      handle: () => (deliveries.resume(), [200, { paused: false }]),
    },
    ...extra,
  ];
}
