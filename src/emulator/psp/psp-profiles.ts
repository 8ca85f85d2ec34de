import { asaasProfile } from './asaas-profile.js';
import { mercadoPagoProfile } from './mercado-pago-profile.js';
import { pagarmeProfile } from './pagarme-profile.js';
import { pagbankProfile } from './pagbank-profile.js';
import type { PspProfile, PspProfileName } from './psp-profile.js';
import { wooviProfile } from './woovi-profile.js';

/** Each PSP the emulator plays: name → its profile, made with the run's given credentials. */
export const pspProfiles: Readonly<Record<PspProfileName, (credentials: Readonly<Record<string, string>>) => PspProfile>> = {
  'mercado-pago': mercadoPagoProfile,
  asaas: asaasProfile,
  pagbank: pagbankProfile,
  woovi: wooviProfile,
  pagarme: pagarmeProfile,
};

export const pspProfileNames = Object.keys(pspProfiles) as PspProfileName[];

export function isPspProfileName(value: unknown): value is PspProfileName {
  return typeof value === 'string' && Object.hasOwn(pspProfiles, value);
}
