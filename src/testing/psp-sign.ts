// The test kit signs as each PSP does, with the verifier's own content builder (src/sources/<psp>/sign.ts).
import {
  asaasAwaitingChargebackReversal,
  asaasChargebackDispute,
  asaasChargebackRequested,
  asaasPaymentReceived,
  asaasPaymentRefunded,
} from '../sources/asaas/samples.js';
import { mercadoPagoNotification, mercadoPagoPayment } from '../sources/mercado-pago/samples.js';
import { pagarmeCharge, pagarmeChargePaidHook } from '../sources/pagarme/samples.js';
import { pagbankOrderPaid } from '../sources/pagbank/samples.js';
import { wooviChargeCompleted, wooviTransactionReceived } from '../sources/woovi/samples.js';

export { mercadoPagoManifest, signMercadoPago } from '../sources/mercado-pago/sign.js';
export type { MercadoPagoSigned } from '../sources/mercado-pago/sign.js';
export { signPagBank } from '../sources/pagbank/sign.js';
export { signWoovi } from '../sources/woovi/sign.js';

/** Asaas signs nothing: it sends the webhook's access token in `asaas-access-token`. */
export function signAsaas(input: { token: string }): { 'asaas-access-token': string } {
  return { 'asaas-access-token': input.token };
}

/** Pagar.me v5 signs nothing: the registered URL carries the secret (`?secret=…` by default). */
export function signPagarme(input: { path: string; secret: string; param?: string }): string {
  const separator = input.path.includes('?') ? '&' : '?';
  return `${input.path}${separator}${encodeURIComponent(input.param ?? 'secret')}=${encodeURIComponent(input.secret)}`;
}

/** Each PSP's documented bodies (the source of each in its file's comment), for tests and examples. */
export const pspSamples = {
  mercadoPago: { notification: mercadoPagoNotification, payment: mercadoPagoPayment },
  asaas: {
    paymentReceived: asaasPaymentReceived,
    paymentRefunded: asaasPaymentRefunded,
    chargebackRequested: asaasChargebackRequested,
    chargebackDispute: asaasChargebackDispute,
    awaitingChargebackReversal: asaasAwaitingChargebackReversal,
  },
  pagbank: { orderPaid: pagbankOrderPaid },
  woovi: { chargeCompleted: wooviChargeCompleted, transactionReceived: wooviTransactionReceived },
  pagarme: { chargePaidHook: pagarmeChargePaidHook, charge: pagarmeCharge },
} as const;
