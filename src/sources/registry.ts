import type { Source } from './source.js';
import { asaasSource, type AsaasOptions } from './asaas/source.js';
import { mercadoPagoSource, type MercadoPagoOptions } from './mercado-pago/source.js';
import { pagarmeSource, type PagarmeOptions } from './pagarme/source.js';
import { pagbankSource, type PagBankOptions } from './pagbank/source.js';
import { wooviSource, type WooviOptions } from './woovi/source.js';

export type { AsaasOptions, MercadoPagoOptions, PagarmeOptions, PagBankOptions, WooviOptions };

/** One PSP's own options: `psp` names it. */
export type PspSourceOptions = MercadoPagoOptions | AsaasOptions | PagBankOptions | WooviOptions | PagarmeOptions;
export type PspName = PspSourceOptions['psp'];

/** Name → the source's factory and the option names it owns. A new PSP is a folder and a line here. */
export const sourceRegistry: {
  readonly [P in PspName]: {
    readonly create: (options: Extract<PspSourceOptions, { psp: P }>) => Source;
    readonly options: readonly string[];
  };
} = {
  'mercado-pago': { create: (o) => mercadoPagoSource(o), options: ['secret', 'accessToken', 'apiBaseUrl', 'toleranceSeconds'] },
  asaas: { create: asaasSource, options: ['token', 'apiKey', 'apiBaseUrl'] },
  pagbank: { create: pagbankSource, options: ['token'] },
  woovi: { create: wooviSource, options: ['publicKeys'] },
  pagarme: { create: pagarmeSource, options: ['secretKey', 'urlSecret', 'apiBaseUrl'] },
};

export const pspNames = Object.keys(sourceRegistry) as PspName[];

export function isPspName(value: unknown): value is PspName {
  return typeof value === 'string' && Object.hasOwn(sourceRegistry, value);
}
