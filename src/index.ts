// The public entry point of the core: what a merchant calls. Products import the core only through here;
// adapters and the CLI also use src/adapter-kit (internal, not a package export).
export { createReceiver } from './intake/create-receiver.js';
export type { Receiver, ReceiveRequest } from './intake/create-receiver.js';
export type { BodySource } from './intake/read-body.js';
export type { ReceiveResult } from './intake/receive-answer.js';
export type { InvalidHandler, ReceiverOptions, SignatureOptions } from './intake/receiver-options.js';
export { createProcessing } from './processing/create-processing.js';
export type { AcceptOptions, AcceptResult, Processing, QueuedRun } from './processing/processing.js';
export type { AckMode, BackgroundOptions, EventQueue, ProcessingOptions, QueuedEvent } from './processing/processing-options.js';
export type { ErrorHandler, EventHandler, HandlerContext, HandlerFailure, ViolationHandler } from './processing/handler-registry.js';
export { memoryPaymentBook } from './book/memory-payment-book.js';
export type { MemoryPaymentBook, MemoryPaymentBookOptions } from './book/memory-payment-book.js';
export type {
  BookResource,
  DismissResult,
  Dispute,
  DisputeWithAge,
  DuplicateHold,
  Expectation,
  ExpectedCharge,
  HeldEvent,
  HeldState,
  PaymentBook,
  RecordContext,
  RecordResult,
  ReleaseClaim,
  ReleaseResult,
  ReleaseTrail,
  TimelineEntry,
  TimelineOutcome,
} from './book/payment-book.js';
export { policyReasons, violationReasons } from './events/violation.js';
export type { PolicyAction, PolicyReason, Violation, ViolationReason } from './events/violation.js';
export type { PaymentPolicy, ResolvedPolicy } from './book/payment-policy.js';
export type { BookChannel } from './events/book-channel.js';
export { confirmableEvents } from './book/confirm-with-gateway.js';
export type { ConfirmableEvent, ConfirmClient, ConfirmOptions, ConfirmSetting } from './book/confirm-with-gateway.js';
export { memoryJournal } from './journal/memory-journal.js';
export type { MemoryJournal, MemoryJournalOptions } from './journal/memory-journal.js';
export type {
  DeliveryJournal,
  JournalAttempt,
  JournalConfirmed,
  JournalEntry,
  JournalItem,
  JournalQuery,
} from './journal/delivery-journal.js';
export { eventKey } from './events/event-key.js';
export { verifySignature } from './signature/verify-signature.js';
export { verifyTimestampedSignature } from './signature/verify-timestamped-signature.js';
export { signatureHeader, signSha256, signTimestamped } from './signature/sign-body.js';
export type { SigningScheme } from './signature/sign-body.js';
export type { VerifyTimestampedSignatureInput } from './signature/verify-timestamped-signature.js';
export type { SignatureFailureReason, SignatureResult, VerifySignatureInput } from './signature/verify-signature.js';
export { normalizeEvent } from './events/normalize-event.js';
export { isForwardTransition } from './events/status-order.js';
export type { NormalizeResult } from './events/normalize-event.js';
export type { NormalizeOptions } from './events/normalize-event.js';
export type { PixInfraction } from './events/event-types.js';
export type { ApiPixEventName } from './events/event-names.js';
export type {
  ApiPixEvent,
  PixReceivedEvent,
  PixRefundUpdatedEvent,
  RecurrenceUpdatedEvent,
  RecurringChargeUpdatedEvent,
} from './events/event-types.js';
export {
  documentedEventNames,
  isPixEventName,
  isTransferEventName,
  pixEventNames,
  transactionEventNames,
  transactionStatuses,
  transferEventNames,
  transferStatuses,
} from './events/event-names.js';
export type {
  EventName,
  PixEventName,
  TransactionEventName,
  TransactionStatus,
  TransferEventName,
  TransferStatus,
} from './events/event-names.js';
export type {
  EventSource,
  Provider,
  EventWarning,
  JsonObject,
  PayloadVariant,
  PixCustomer,
  PixEvent,
  PixEventOf,
  PixPayer,
  PixRefund,
  Transaction,
  TransactionEvent,
  PspTransactionEvent,
  Transfer,
  TransferEvent,
  UnknownEvent,
} from './events/event-types.js';
export { memoryDedupeStore } from './dedupe/memory-dedupe-store.js';
export type { MemoryDedupeStore, MemoryDedupeStoreOptions } from './dedupe/memory-dedupe-store.js';
export type { ClaimResult, DedupeStore } from './dedupe/dedupe-store.js';
export type { InvalidDelivery, QuarantineStore } from './dedupe/quarantine-store.js';
export { memoryQuarantine } from './dedupe/memory-quarantine.js';
export type { MemoryQuarantine, MemoryQuarantineRow } from './dedupe/memory-quarantine.js';
export type { ProcessingReason, ReasonCode } from './shared/reasons.js';
export { PixhookConfigError, PixhookError, PixhookTimeoutError } from './shared/pixhook-error.js';
export type { PixhookErrorCode } from './shared/pixhook-error.js';
export type { HeaderSource } from './shared/read-header.js';
export type { Logger } from './shared/logger.js';
export type { Telemetry, TelemetryAttributes, TelemetrySpan } from './shared/telemetry.js';
export { ackLatencyBucketsMs } from './metrics/receiver-metrics.js';
export { metricsToPrometheus } from './metrics/prometheus-text.js';
export type { ProcessingMetrics, ReceiverMetrics } from './metrics/receiver-metrics.js';
export type { HealthCheck, ReceiverHealth } from './processing/health-checks.js';
