// pixhook/testing: sign deliveries, build the gateway's payloads, and deliver them like the gateway.
// Nothing here imports a `node:` module, so sign and the builders also run on edge runtimes.
export { sign, signedRequest, signTimestamped } from './sign.js';
export type { SignedRequest, SignedRequestHeaders, SignedRequestOptions } from './sign.js';
export { buildPayload, defaultStatusOf } from './build-payload.js';
export type { PayloadOptions, PixPayload } from './build-payload.js';
export {
  transactionCanceled,
  transactionCreated,
  transactionInfraction,
  transactionPaid,
  transactionRefunded,
  transactionUpdated,
  transferCanceled,
  transferCompleted,
  transferCreated,
  transferUpdated,
} from './event-builders.js';
export type { PayloadBuilder } from './event-builders.js';
export { generateCnpj, generateCpf, isValidCnpj, isValidCpf } from './brazilian-documents.js';
export { generateEndToEndId, pixParticipants } from './end-to-end-id.js';
export type { EndToEndIdOptions } from './end-to-end-id.js';
export { randomSource, seededRandom } from './seeded-random.js';
export type { RandomSource } from './seeded-random.js';
export { deliver } from './deliver.js';
export type { DeliverOptions, DeliveryAttempt, DeliveryResult, Sleep } from './deliver.js';
export { apiPixAmount, apiPixBody, apiPixPix, apiPixRefund } from './api-pix-payloads.js';
export type { ApiPixDevolucao, ApiPixPix, ApiPixPixOptions, ApiPixRefundOptions } from './api-pix-payloads.js';
export { mercadoPagoManifest, pspSamples, signAsaas, signMercadoPago, signPagarme, signPagBank, signWoovi } from './psp-sign.js';
export type { MercadoPagoSigned } from './psp-sign.js';
