import { z } from 'zod';
import type { ApiPixDelivery } from './api-pix-deliveries.js';
import { requestFaultSchema, type ApiPixDeliveryFault, type ApiPixFaults } from './api-pix-faults.js';
import { controlBody, jsonBody } from './api-pix-request-body.js';
import type { Route } from './api-pix-routes.js';
import type { createApiPixState } from './api-pix-state.js';

const payBodySchema = z.strictObject({ amountInCents: z.int().min(1).optional(), infoPagador: z.string().max(140).optional() });
const pixBodySchema = z.strictObject({
  amountInCents: z.int().min(1),
  key: z.string().min(1).max(77).optional(),
  infoPagador: z.string().max(140).optional(),
  notify: z.boolean().optional(),
});
const refundControlSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[a-zA-Z0-9]{1,35}$/)
    .optional(),
  amountInCents: z.int().min(1).optional(),
  status: z.enum(['DEVOLVIDO', 'NAO_REALIZADO']).optional(),
  natureza: z.enum(['ORIGINAL', 'RETIRADA', 'MED_OPERACIONAL', 'MED_FRAUDE', 'MED_PIX_AUTOMATICO']).optional(),
});

/** A Pix to a key, as the control and `emulator.pixToKey` take it. */
export interface PixToKeyInput {
  amountInCents: number;
  key?: string | undefined;
  infoPagador?: string | undefined;
  notify?: boolean | undefined;
}

interface ControlParts {
  state: ReturnType<typeof createApiPixState>;
  faults: ApiPixFaults;
  deliveries: () => readonly ApiPixDelivery[];
  pixToKey: (input: PixToKeyInput) => Record<string, unknown>;
  revokeTokens: () => void;
}

/**
 * The emulator-only controls under `/_emulator`, on the same mTLS server as the API: only a holder of the
 * run's client certificate reaches them.
 */
export function controlRoutes({ state, faults, deliveries, pixToKey, revokeTokens }: ControlParts): Route[] {
  return [
    {
      method: 'POST',
      pattern: /^\/_emulator\/cob\/([^/]+)\/pay$/,
      auth: 'none',
      handle: ({ params, body }) => ({ status: 200, body: state.pay(params[0] as string, controlBody(payBodySchema, body)) }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/cob\/([^/]+)\/expire$/,
      auth: 'none',
      handle: ({ params }) => ({ status: 200, body: state.expire(params[0] as string) }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/pix$/,
      auth: 'none',
      handle: ({ body }) => ({ status: 201, body: pixToKey(controlBody(pixBodySchema, body)) }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/pix\/([^/]+)\/refund$/,
      auth: 'none',
      handle: ({ params, body }) => ({ status: 201, body: state.finalRefund(params[0] as string, controlBody(refundControlSchema, body)) }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/tokens\/revoke$/,
      auth: 'none',
      handle: () => {
        revokeTokens();
        return { status: 200, body: { message: 'Every token issued so far is revoked.' } };
      },
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/faults$/,
      auth: 'none',
      handle: ({ body }) => {
        const fault = controlBody(requestFaultSchema, body);
        faults.requests.add(fault);
        return { status: 201, body: fault };
      },
    },
    {
      method: 'GET',
      pattern: /^\/_emulator\/deliveries$/,
      auth: 'none',
      handle: () => ({ status: 200, body: { data: deliveries() } }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/delivery-faults$/,
      auth: 'none',
      handle: ({ body }) => ({ status: 201, body: faults.addDeliveryFault(jsonBody(body) as ApiPixDeliveryFault) }),
    },
    {
      method: 'GET',
      pattern: /^\/_emulator\/delivery-faults$/,
      auth: 'none',
      handle: () => ({ status: 200, body: { data: faults.deliveries.list(), disableAfterFailures: faults.disableAfter() } }),
    },
    {
      method: 'DELETE',
      pattern: /^\/_emulator\/delivery-faults$/,
      auth: 'none',
      handle: () => {
        faults.clearDeliveryFaults();
        return { status: 204 };
      },
    },
  ];
}
