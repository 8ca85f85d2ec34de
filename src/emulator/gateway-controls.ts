import { deliveryFaultSchema, faultSchema, infractionBodySchema, optionalJson, payBodySchema, paymentFrom } from './control-bodies.js';
import type { DeliveryFault, DeliveryFaults } from './delivery-faults.js';
import type { DeliveryRecord } from './emulator-records.js';
import type { createFaultInjector } from './fault-injector.js';
import type { Route } from './gateway-routes.js';
import type { createGatewayState } from './gateway-state.js';
import type { createGatewayTokens } from './gateway-tokens.js';
import { RequestError, parseJsonBody } from './http-io.js';

interface ControlParts {
  state: ReturnType<typeof createGatewayState>;
  tokens: ReturnType<typeof createGatewayTokens>;
  faults: ReturnType<typeof createFaultInjector>;
  deliveryFaults: DeliveryFaults;
  deliveries: () => readonly DeliveryRecord[];
  redeliver: (deliveryId: string) => DeliveryRecord;
  retryInfo: { attempts: number; scheduleMs: readonly number[] };
}

/** The emulator-only controls under `/_emulator`: no credentials, local use only (control-guard checks the caller). */
export function gatewayControlRoutes({ state, tokens, faults, deliveryFaults, deliveries, redeliver, retryInfo }: ControlParts): Route[] {
  return [
    {
      method: 'POST',
      pattern: /^\/_emulator\/transactions\/([^/]+)\/pay$/,
      auth: 'none',
      handle: ({ params, body }) => ({ status: 200, body: { success: true, data: state.pay(params[0] as string, paymentFrom(body)) } }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/transactions\/([^/]+)\/infraction$/,
      auth: 'none',
      handle: ({ params, body }) => ({
        status: 200,
        body: { success: true, data: state.infraction(params[0] as string, optionalJson(body, infractionBodySchema) ?? {}) },
      }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/transactions\/([^/]+)\/expire$/,
      auth: 'none',
      handle: ({ params }) => ({ status: 200, body: { success: true, data: state.expire(params[0] as string) } }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/transactions\/([^/]+)\/refund$/,
      auth: 'none',
      handle: ({ params, body }) => ({
        status: 200,
        body: { success: true, data: state.refund(params[0] as string, optionalJson(body, payBodySchema)?.reason) },
      }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/tokens\/revoke$/,
      auth: 'none',
      handle: () => {
        tokens.revoke();
        return { status: 200, body: { success: true, message: 'Every token issued so far is revoked.' } };
      },
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/faults$/,
      auth: 'none',
      handle: ({ body }) => {
        const parsed = faultSchema.safeParse(parseJsonBody(body));
        if (!parsed.success) throw new RequestError(400, 'INVALID_REQUEST', parsed.error.issues[0]?.message ?? 'invalid fault');
        faults.add(parsed.data);
        return { status: 201, body: { success: true, data: parsed.data } };
      },
    },
    {
      method: 'GET',
      pattern: /^\/_emulator\/deliveries$/,
      auth: 'none',
      handle: ({ query }) => {
        const url = query.get('url');
        const resourceId = query.get('resourceId');
        const state = query.get('state');
        const data = deliveries().filter(
          (d) =>
            (url === null || d.url === url) &&
            (resourceId === null || d.resourceId === resourceId) &&
            (state === null || d.state === state),
        );
        return { status: 200, body: { success: true, retry: retryInfo, data } };
      },
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/deliveries\/([^/]+)\/redeliver$/,
      auth: 'none',
      handle: ({ params }) => ({ status: 201, body: { success: true, data: redeliver(params[0] as string) } }),
    },
    {
      method: 'POST',
      pattern: /^\/_emulator\/delivery-faults$/,
      auth: 'none',
      handle: ({ body }) => {
        const parsed = deliveryFaultSchema.safeParse(parseJsonBody(body));
        if (!parsed.success) throw new RequestError(400, 'INVALID_REQUEST', parsed.error.issues[0]?.message ?? 'invalid delivery fault');
        return { status: 201, body: { success: true, data: deliveryFaults.add(parsed.data as DeliveryFault) } };
      },
    },
    {
      method: 'GET',
      pattern: /^\/_emulator\/delivery-faults$/,
      auth: 'none',
      handle: () => ({ status: 200, body: { success: true, data: deliveryFaults.list() } }),
    },
    {
      method: 'DELETE',
      pattern: /^\/_emulator\/delivery-faults$/,
      auth: 'none',
      handle: () => {
        deliveryFaults.clear();
        return { status: 200, body: { success: true, message: 'Every delivery fault is removed.' } };
      },
    },
    {
      method: 'DELETE',
      pattern: /^\/_emulator\/delivery-faults\/([^/]+)$/,
      auth: 'none',
      handle: ({ params }) => {
        if (!deliveryFaults.remove(params[0] as string)) throw new RequestError(404, 'NOT_FOUND', 'No such delivery fault.');
        return { status: 200, body: { success: true, message: 'Delivery fault removed.' } };
      },
    },
  ];
}
