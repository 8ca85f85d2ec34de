export { startEmulator } from './start-emulator.js';
export type { Emulator } from './start-emulator.js';
export type { EmulatorOptions, RateLimitedRoute } from './emulator-options.js';
export type { EmulatorFault } from './fault-injector.js';
export type { ActiveDeliveryFault, DeliveryFault } from './delivery-faults.js';
export type { EmulatorSignature } from './delivery-signature.js';
export type {
  ChargePayment,
  ChargeRecord,
  ChargeStatus,
  DeliveryRecord,
  EmulatorDeliveryAttempt,
  RequestLogEntry,
  TransferRecord,
  TransferStatus,
  WebhookRecord,
} from './emulator-records.js';
export { emulatorCompany, emulatorRefusedPixKey, emulatorSellers } from './gateway-state.js';
export type { EmulatorInfraction, EmulatorPayment } from './gateway-state.js';
export { buildEmvCode, crc16, parseEmvFields } from './emv-code.js';
export type { EmvCodeInput } from './emv-code.js';
export { qrMatrix, qrPng, qrPngDataUri } from './qr-png.js';
export type { ApiPixEmulatorOptions } from './api-pix/api-pix-emulator-options.js';
export type { ApiPixEmulator } from './api-pix/start-api-pix-emulator.js';
export type { ApiPixDeliveryFault, ApiPixRequestFault } from './api-pix/api-pix-faults.js';
export type { ApiPixRequestLogEntry } from './api-pix/serve-api-pix-request.js';
export type { ApiPixBodyShape, ApiPixDelivery, ApiPixDeliveryAttempt } from './api-pix/api-pix-deliveries.js';
export type { ApiPixCertificatePaths } from './api-pix/run-certificates.js';
export type { PspEmulator } from './psp/start-psp-emulator.js';
export type { PspEmulatorOptions } from './psp/psp-emulator-options.js';
export type { PspCharge, PspProfileName } from './psp/psp-profile.js';
export type { PspPayment } from './psp/psp-state.js';
export type { PspDelivery, PspDeliveryAttempt } from './psp/psp-deliveries.js';
export type { PspFetchFault } from './psp/psp-controls.js';
export type { PspRequestLogEntry } from './psp/serve-psp-request.js';
