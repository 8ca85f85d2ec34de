import { setMaxListeners } from 'node:events';
import { mustBe } from '../../shared/option-checks.js';
import { checkDeliveryFault } from '../control-bodies.js';
import { listenEmulator } from '../listen-emulator.js';
import { createDeliveryFaults, type ActiveDeliveryFault, type DeliveryFault } from '../delivery-faults.js';
import { fetchFaultSchema, type PspFetchFault } from './psp-controls.js';
import { createPspDeliveries, type PspDelivery } from './psp-deliveries.js';
import { resolvePspEmulatorOptions, type PspEmulatorOptions } from './psp-emulator-options.js';
import type { PspCharge, PspCredentials, PspProfileName } from './psp-profile.js';
import { isPspProfileName, pspProfileNames, pspProfiles } from './psp-profiles.js';
import { createPspState, type PspPayment } from './psp-state.js';
import { servePspRequest, type PspRequestLogEntry } from './serve-psp-request.js';

export interface PspEmulator {
  /** e.g. `http://127.0.0.1:41234`: the receiver's `apiBaseUrl`. */
  readonly url: string;
  readonly port: number;
  readonly profile: PspProfileName;
  /** The run's credentials, by the names `createPspReceiver` takes (`token`, `apiKey`, `secretKey`…). */
  readonly credentials: PspCredentials;
  /** Attempts per webhook and the waits between them, already scaled by `timeFactor`. */
  readonly retry: { attempts: number; scheduleMs: readonly number[] };
  /** Where webhooks go now (undefined: none registered, nothing is sent). */
  webhookUrl(): string | undefined;
  setWebhookUrl(url: string): void;
  createCharge(input: { amountInCents: number; payerDocument?: string }): PspCharge;
  /** Pays the charge and sends its webhook (twice with `duplicate`; a late `pending` after it with `latePending`). */
  pay(id: string, payment?: PspPayment): Promise<PspCharge>;
  charges(): PspCharge[];
  /** What this PSP has after a payment and the profile plays: `refund`, `dispute` (its chargeback or MED dispute). */
  readonly plays: readonly ('refund' | 'dispute')[];
  /** Refunds a paid charge and sends its webhook (where `plays` has `refund`; else a 422 RequestError). */
  refund(id: string): Promise<PspCharge>;
  /** Disputes a paid charge (chargeback, MED) and sends its webhook (where `plays` has `dispute`). */
  dispute(id: string): Promise<PspCharge>;
  /** The confirmation API answers `status` (429, 500 or 503) for the next `times` reads. */
  injectFetchFault(fault: PspFetchFault): void;
  injectDeliveryFault(fault: DeliveryFault): ActiveDeliveryFault;
  clearDeliveryFaults(): void;
  /** The delivery faults in force. */
  deliveryFaultsInForce(): ActiveDeliveryFault[];
  /** True while the queue is paused (Asaas after 15 failed attempts in a row). */
  paused(): boolean;
  /** Re-enables a paused queue: the kept webhooks are sent again. */
  resume(): void;
  deliveries(): readonly PspDelivery[];
  requests(): readonly PspRequestLogEntry[];
  /** Resolves when no webhook is being attempted (one waiting for a paused queue counts as settled). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** Starts an emulated PSP (Mercado Pago, Asaas, PagBank, Woovi or Pagar.me) on `127.0.0.1`. */
export async function startPspEmulator(options: PspEmulatorOptions): Promise<PspEmulator> {
  if (!isPspProfileName(options.profile))
    throw mustBe('profile', `one of ${pspProfileNames.map((n) => `"${n}"`).join(', ')}`, options.profile);
  const config = resolvePspEmulatorOptions(options);
  const profile = pspProfiles[config.profile](config.credentials);
  const closing = new AbortController();
  setMaxListeners(0, closing.signal);
  const deliveryFaults = createDeliveryFaults(config.now);
  for (const [i, fault] of config.deliveryFaults.entries()) deliveryFaults.add(checkDeliveryFault(`deliveryFaults[${i}]`, fault));
  const deliveries = createPspDeliveries({
    scheduleMs: profile.retryScheduleMs,
    timeFactor: config.timeFactor,
    timeoutMs: config.deliveryTimeoutMs,
    pauseAfterFailures: profile.pauseAfterFailures ?? Infinity,
    now: config.now,
    faults: deliveryFaults,
    closed: closing.signal,
  });
  let webhookUrl = config.webhookUrl;
  const state = createPspState({ profile, deliveries, now: config.now, webhookUrl: () => webhookUrl });
  const fetchFaults: PspFetchFault[] = [];
  const log: PspRequestLogEntry[] = [];
  const setWebhookUrl = (url: string) => void (webhookUrl = url);
  const handle = servePspRequest({ profile, state, deliveries, deliveryFaults, fetchFaults, setWebhookUrl }, log);

  const server = await listenEmulator(handle, config.host, config.port);

  return {
    url: server.url,
    port: server.port,
    profile: config.profile,
    get credentials() {
      return profile.credentials;
    },
    retry: { attempts: profile.retryScheduleMs.length + 1, scheduleMs: profile.retryScheduleMs.map((ms) => ms * config.timeFactor) },
    webhookUrl: () => webhookUrl,
    setWebhookUrl: (url) => {
      if (!URL.canParse(url)) throw mustBe('url', 'an http(s) URL', url);
      setWebhookUrl(url);
    },
    createCharge: (input) => state.create(input),
    pay: (id, payment) => state.pay(id, payment),
    charges: state.charges,
    plays: profile.plays,
    refund: (id) => state.after(id, 'refund'),
    dispute: (id) => state.after(id, 'dispute'),
    injectFetchFault: (fault) => void fetchFaults.push({ ...fetchFaultSchema.parse(fault) }),
    injectDeliveryFault: (fault) => deliveryFaults.add(checkDeliveryFault('fault', fault)),
    clearDeliveryFaults: () => deliveryFaults.clear(),
    deliveryFaultsInForce: () => deliveryFaults.list(),
    paused: deliveries.paused,
    resume: deliveries.resume,
    deliveries: deliveries.deliveries,
    requests: () => log,
    idle: deliveries.idle,
    async close() {
      closing.abort();
      await server.close();
      await deliveries.idle();
    },
  };
}
