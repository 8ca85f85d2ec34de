import { checkNumber, mustBe } from '../../shared/option-checks.js';
import type { DeliveryFault } from '../delivery-faults.js';
import type { PspProfileName } from './psp-profile.js';
import { optionNames, refuseUnknownOptions } from '../../shared/known-options.js';

export interface PspEmulatorOptions {
  /** The PSP to play. */
  profile: PspProfileName;
  /** Default 0: a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Where webhooks go (the registered URL; Pagar.me's carries its URL secret). Also `POST /_emulator/webhook`. */
  webhookUrl?: string;
  /**
   * Multiplies the PSP's retry schedule: 1 (default) waits as the PSP does (Asaas's 30 s, Mercado Pago's 15
   * minutes); 0.001 turns minutes into fractions of a second for tests.
   */
  timeFactor?: number;
  /** How long one webhook attempt may take. Default 10 000 ms. */
  deliveryTimeoutMs?: number;
  /** Delivery faults in force from the start (as `POST /_emulator/delivery-faults`). */
  deliveryFaults?: DeliveryFault[];
  /** The run's credentials (generated when not given): the names of the profile's `credentials`. */
  credentials?: Readonly<Record<string, string>>;
  now?: () => number;
}

interface ResolvedPspEmulatorOptions {
  profile: PspProfileName;
  port: number;
  host: string;
  webhookUrl: string | undefined;
  timeFactor: number;
  deliveryTimeoutMs: number;
  deliveryFaults: DeliveryFault[];
  credentials: Readonly<Record<string, string>>;
  now: () => number;
}

export function resolvePspEmulatorOptions(options: PspEmulatorOptions): ResolvedPspEmulatorOptions {
  refuseUnknownOptions(options, pspEmulatorOptionNames, 'startEmulator');
  const webhookUrl = options.webhookUrl;
  if (webhookUrl !== undefined && !(URL.canParse(webhookUrl) && /^https?:$/.test(new URL(webhookUrl).protocol)))
    throw mustBe('webhookUrl', 'an http(s) URL', webhookUrl);
  if (options.credentials !== undefined && (typeof options.credentials !== 'object' || options.credentials === null))
    throw mustBe('credentials', 'an object of strings', options.credentials);
  return {
    profile: options.profile,
    port: checkNumber('port', options.port ?? 0, { min: 0, max: 65_535 }),
    host: options.host ?? '127.0.0.1',
    webhookUrl,
    timeFactor: checkNumber('timeFactor', options.timeFactor ?? 1, { min: 0, max: 1, integer: false }),
    deliveryTimeoutMs: checkNumber('deliveryTimeoutMs', options.deliveryTimeoutMs ?? 10_000, { min: 1, max: 600_000 }),
    deliveryFaults: options.deliveryFaults ?? [],
    credentials: options.credentials ?? {},
    now: options.now ?? Date.now,
  };
}

/** Every option startEmulator takes. */
const pspEmulatorOptionNames = optionNames<PspEmulatorOptions>()([
  'profile',
  'port',
  'host',
  'webhookUrl',
  'timeFactor',
  'deliveryTimeoutMs',
  'deliveryFaults',
  'credentials',
  'now',
]);
