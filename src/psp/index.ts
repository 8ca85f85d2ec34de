// pixhook/psp: one receiver for a PSP's own Pix webhooks (Mercado Pago, Asaas, PagBank, Woovi, Pagar.me).
export { createPspReceiver } from './create-psp-receiver.js';
export type { PspIntakeOptions, PspReceiverOptions } from './psp-options.js';
export type {
  AsaasOptions,
  MercadoPagoOptions,
  PagarmeOptions,
  PagBankOptions,
  PspName,
  PspSourceOptions,
  WooviOptions,
} from '../sources/registry.js';
export { pspNames } from '../sources/registry.js';
export type { PixEvent, Provider, PspTransactionEvent } from '../events/event-types.js';
