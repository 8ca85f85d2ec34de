// pixhook/api-pix: the Central Bank's standard API Pix (bacen/pix-api). A plain list of exports.
export { apiPixCents } from '../events/api-pix-amount.js';
export { apiPixKey } from '../events/api-pix-key.js';
export { pixReceivedEvent, readPixItem, recurrenceEvent, recurringChargeEvent } from '../events/read-api-pix.js';
export type { ApiPixRead, PixItemRead } from '../events/read-api-pix.js';
export { apiPixEventNames, type ApiPixEventName } from '../events/event-names.js';
export type {
  ApiPixEvent,
  ApiPixEventBase,
  PixReceivedEvent,
  PixRefundStatus,
  PixRefundUpdate,
  PixRefundUpdatedEvent,
  PixValueComponents,
  ReceivedPix,
  RecurrenceUpdate,
  RecurrenceUpdatedEvent,
  RecurringChargeUpdate,
  RecurringChargeUpdatedEvent,
} from '../events/event-types.js';
export { createApiPixReceiver } from './receiver/create-api-pix-receiver.js';
export type { ApiPixReceiverOptions } from './receiver/create-api-pix-receiver.js';
export type { ApiPixAuth, CertificateSource } from '../sources/api-pix/api-pix-auth.js';
export type { PeerConnection, PeerTls } from '../shared/peer-connection.js';
export * from './client/index.js';
