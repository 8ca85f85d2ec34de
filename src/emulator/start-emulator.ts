import { setMaxListeners } from 'node:events';
import type { PayloadVariant } from '../index.js';
import { mustBe } from '../shared/option-checks.js';
import { checkDeliveryFault } from './control-bodies.js';
import { createDeliveryFaults, type ActiveDeliveryFault, type DeliveryFault } from './delivery-faults.js';
import { resolveEmulatorOptions, type EmulatorOptions } from './emulator-options.js';
import type { ChargeRecord, DeliveryRecord, RequestLogEntry, TransferRecord, WebhookRecord } from './emulator-records.js';
import { createTokenSigner } from './emulator-jwt.js';
import { createFaultInjector, type EmulatorFault } from './fault-injector.js';
import { gatewayControlRoutes } from './gateway-controls.js';
import { gatewayApiRoutes } from './gateway-routes.js';
import { createGatewayState, type EmulatorInfraction, type EmulatorPayment } from './gateway-state.js';
import { createGatewayTokens } from './gateway-tokens.js';
import { RequestError } from './http-io.js';
import { listenEmulator } from './listen-emulator.js';
import { createRouteLimits } from './route-limits.js';
import { serveGatewayRequest } from './serve-gateway-request.js';
import { createWebhookDispatcher, retrySchedule } from './webhook-dispatcher.js';
import type { ApiPixEmulatorOptions } from './api-pix/api-pix-emulator-options.js';
import { startApiPixEmulator, type ApiPixEmulator } from './api-pix/start-api-pix-emulator.js';
import type { PspEmulatorOptions } from './psp/psp-emulator-options.js';
import { isPspProfileName, pspProfileNames } from './psp/psp-profiles.js';
import { startPspEmulator, type PspEmulator } from './psp/start-psp-emulator.js';

export interface Emulator {
  /** e.g. `http://127.0.0.1:41234` — the client's `baseUrl`. */
  readonly url: string;
  readonly port: number;
  readonly variant: PayloadVariant;
  /** The credentials in force (generated when not given): the CLI prints them once for the developer. */
  readonly credentials: { apiKey: string; apiSecret: string; webhookSecret: string };
  /** Attempts per delivery (default 5) and the waits between them (default 1 s doubling), from `retry`. */
  readonly retry: { attempts: number; scheduleMs: readonly number[] };
  /** Stops serving, aborts deliveries in flight and pending transfer steps. */
  close(): Promise<void>;
  /** Resolves when every webhook delivery started so far has settled (delivered or out of attempts). */
  idle(): Promise<void>;
  /** Pays the charge: pending, again when paid (a second payment, its own endToEndId), or after it expired. */
  pay(id: string, payment?: EmulatorPayment): ChargeRecord;
  /** Opens a MED dispute on a paid charge and sends `transaction_infraction`. */
  infraction(id: string, details?: EmulatorInfraction): ChargeRecord;
  expire(id: string): ChargeRecord;
  refund(id: string, reason?: string): ChargeRecord;
  /** Makes every token issued so far answer 401 (as after a key rotation). */
  revokeTokens(): void;
  injectFault(fault: EmulatorFault): void;
  /** Makes deliveries (to `fault.url`, or all) fail, time out or drop, for `times` attempts or `forMs`. */
  injectDeliveryFault(fault: DeliveryFault): ActiveDeliveryFault;
  /** Removes one delivery fault, or every one without an id. */
  clearDeliveryFaults(id?: string): void;
  deliveryFaults(): ActiveDeliveryFault[];
  /** Sends a delivery's exact body again as a new delivery (5 attempts), like a dashboard's resend. */
  redeliver(deliveryId: string): DeliveryRecord;
  charges(): ChargeRecord[];
  transfers(): TransferRecord[];
  webhooks(): WebhookRecord[];
  deliveries(): readonly DeliveryRecord[];
  /** Every request answered, oldest first (status 0 for a dropped connection). No credentials. */
  requests(): readonly RequestLogEntry[];
}

/**
 * Starts an in-memory emulator of the gateway on `127.0.0.1` (a free port unless `port` is given), or with
 * `profile: 'api-pix'` a standard PSP (bacen/pix-api) over mTLS, or with a PSP's name (`'mercado-pago'`,
 * `'asaas'`, `'pagbank'`, `'woovi'`, `'pagarme'`) that PSP: its confirmation API and its signed webhooks.
 */
export function startEmulator(options: ApiPixEmulatorOptions): Promise<ApiPixEmulator>;
export function startEmulator(options: PspEmulatorOptions): Promise<PspEmulator>;
export function startEmulator(options?: EmulatorOptions): Promise<Emulator>;
export function startEmulator(
  options: EmulatorOptions | ApiPixEmulatorOptions | PspEmulatorOptions = {},
): Promise<Emulator | ApiPixEmulator | PspEmulator> {
  const profile = (options as { profile?: unknown } | undefined)?.profile;
  if (profile === 'api-pix') return startApiPixEmulator(options as ApiPixEmulatorOptions);
  if (isPspProfileName(profile)) return startPspEmulator(options as PspEmulatorOptions);
  if (profile !== undefined && profile !== 'gateway')
    return Promise.reject(mustBe('profile', ['"gateway"', '"api-pix"', ...pspProfileNames.map((n) => `"${n}"`)].join(', '), profile));
  return startGatewayEmulator(options as EmulatorOptions);
}

async function startGatewayEmulator(options: EmulatorOptions): Promise<Emulator> {
  const config = resolveEmulatorOptions(options);
  const closing = new AbortController();
  // Every delivery in flight listens for the close: many at once are expected, not a leak.
  setMaxListeners(0, closing.signal);
  const deliveryFaults = createDeliveryFaults(config.now);
  for (const [i, fault] of config.deliveryFaults.entries()) deliveryFaults.add(checkDeliveryFault(`deliveryFaults[${i}]`, fault));
  const dispatcher = createWebhookDispatcher({
    variant: config.variant,
    webhookSecret: config.webhookSecret,
    signature: config.signature,
    faults: deliveryFaults,
    onAttempt: config.onDeliveryAttempt,
    retry: config.retry,
    timeoutMs: config.deliveryTimeoutMs,
    now: config.now,
    closed: closing.signal,
    onSettled: config.onDelivery,
  });
  const state = createGatewayState(config, dispatcher);
  const tokens = createGatewayTokens(config, createTokenSigner());
  const faults = createFaultInjector();
  const log: RequestLogEntry[] = [];
  const retryInfo = { attempts: config.retry.attempts, scheduleMs: retrySchedule(config.retry) };

  function redeliver(id: string): DeliveryRecord {
    const original = dispatcher.deliveries().find((d) => d.id === id);
    if (!original) throw new RequestError(404, 'NOT_FOUND', `No delivery with id ${id}.`);
    if (original.state === 'pending') throw new RequestError(422, 'DELIVERY_PENDING', `Delivery ${id} is still being attempted.`);
    const webhook = original.webhookId === undefined ? undefined : state.webhooks().find((w) => w.id === original.webhookId);
    return dispatcher.redeliver(id, webhook) as DeliveryRecord;
  }

  const routes = [
    ...gatewayApiRoutes(config, state, tokens),
    ...gatewayControlRoutes({ state, tokens, faults, deliveryFaults, deliveries: dispatcher.deliveries, redeliver, retryInfo }),
  ];
  const handle = serveGatewayRequest({ config, routes, tokens, limits: createRouteLimits(config), faults, log });

  const server = await listenEmulator(handle, config.host, config.port);

  return {
    url: server.url,
    port: server.port,
    variant: config.variant,
    credentials: { apiKey: config.apiKey, apiSecret: config.apiSecret, webhookSecret: config.webhookSecret },
    retry: retryInfo,
    async close() {
      closing.abort();
      state.stop();
      await server.close();
      await dispatcher.idle();
    },
    idle: () => dispatcher.idle(),
    pay: (id, payment) => state.pay(id, payment),
    infraction: (id, details) => state.infraction(id, details),
    expire: (id) => state.expire(id),
    refund: (id, reason) => state.refund(id, reason),
    revokeTokens: tokens.revoke,
    injectFault: (fault) => faults.add(fault),
    injectDeliveryFault: (fault) => deliveryFaults.add(checkDeliveryFault('fault', fault)),
    clearDeliveryFaults: (id) => (id === undefined ? deliveryFaults.clear() : void deliveryFaults.remove(id)),
    deliveryFaults: () => deliveryFaults.list(),
    redeliver,
    charges: state.charges,
    transfers: state.transfers,
    webhooks: state.webhooks,
    deliveries: dispatcher.deliveries,
    requests: () => log,
  };
}
