export { createReceiver } from './receiver.js';
export type { BodySource, Receiver, ReceiveRequest, ReceiveResult } from './receiver.js';
export { eventKey, eventKey as defaultDedupeKey } from './events/event-key.js';
export type { BackgroundOptions, EventQueue, QueuedEvent, ReceiverOptions, SignatureOptions } from './receiver-options.js';
export type { AckMode, ErrorHandler, EventHandler, HandlerContext, HandlerFailure } from './handler-registry.js';
export { verifySignature, signaturePrefix } from './signature/verify-signature.js';
export { verifyTimestampedSignature } from './signature/verify-timestamped-signature.js';
export type { VerifyTimestampedSignatureInput } from './signature/verify-timestamped-signature.js';
export type { SignatureFailureReason, SignatureResult, VerifySignatureInput } from './signature/verify-signature.js';
export { normalizeEvent } from './events/normalize-event.js';
export { isForwardTransition } from './events/status-order.js';
export type { NormalizeResult } from './events/normalize-event.js';
export type { NormalizeOptions } from './events/normalize-event.js';
export type { EventSource, EventWarning, PixInfraction } from './events/event-types.js';
export {
  isPixEventName,
  pixEventNames,
  transactionEventNames,
  transactionStatuses,
  transferEventNames,
  transferStatuses,
} from './events/event-names.js';
export type {
  PixEventName,
  TransactionEventName,
  TransactionStatus,
  TransferEventName,
  TransferStatus,
} from './events/event-names.js';
export type {
  JsonObject,
  PayloadVariant,
  PixCustomer,
  PixEvent,
  PixEventOf,
  PixPayer,
  PixRefund,
  Transaction,
  TransactionEvent,
  Transfer,
  TransferEvent,
  UnknownEvent,
} from './events/event-types.js';
export { memoryDedupeStore } from './dedupe/memory-dedupe-store.js';
export type { MemoryDedupeStore, MemoryDedupeStoreOptions } from './dedupe/memory-dedupe-store.js';
export type { ClaimResult, DedupeStore } from './dedupe/dedupe-store.js';
export type { InvalidDelivery, QuarantineStore } from './dedupe/quarantine-store.js';
export { reasonCodes, reasonStatus } from './reasons.js';
export type { BodyFailureReason, ReasonCode } from './reasons.js';
export { PixhookConfigError, PixhookError } from './pixhook-error.js';
export type { HeaderSource } from './read-header.js';
export type { Logger } from './logger.js';
export { ackLatencyBucketsMs } from './receiver-metrics.js';
export { metricsToPrometheus } from './prometheus-text.js';
export type { ReceiverMetrics } from './receiver-metrics.js';
