export { createClient } from './create-client.js';
export type { CallOptions, PixClient, WebhooksApi } from './create-client.js';
export type { ChargeWatcher, ClientOptions, ExpectingBook } from './client-options.js';
export { readBudget } from './read-budget.js';
export type { ReadBudget, ReadBudgetOptions } from './read-budget.js';
export type { ChargeExpectStatus } from './expect-charge.js';
export { defaultWatchRetryDelaysMs, defaultWatchTimeoutMs } from './watch-charge.js';
export type { ChargeWatchStatus, WatchFailure } from './watch-charge.js';
export type { FetchLike, Sleep } from './http-transport.js';
export {
  PixApiError,
  PixBadRequestError,
  PixBusinessRuleError,
  PixNetworkError,
  PixNotFoundError,
  PixRateLimitedError,
  PixResponseError,
  PixServerError,
  PixUnauthorizedError,
  PixValidationError,
  PixWaitTimeoutError,
  parseErrorBody,
} from './client-errors.js';
export type { PixApiErrorInit, PixValidationIssue } from './client-errors.js';
export { isValidCnpj, isValidCpf } from '../shared/brazilian-documents.js';
export { checkPixKey, inferPixKeyType, pixKeyTypes } from './pix-key.js';
export type { PixKeyCheck, PixKeyType } from './pix-key.js';
export type { RateLimitInfo } from './rate-limit.js';
export type { Address, Charge, ChargeCustomer, ChargeItem, CreateChargeInput } from './charge-schemas.js';
export type { SendTransferInput, TransferResult } from './transfer-schemas.js';
export type { Company, CompanyInfo, Seller } from './company-schemas.js';
export type { RegisterWebhookInput, Webhook } from './webhook-schemas.js';
export type { TransactionRecord } from './transaction-schemas.js';
export type { WaitForStatusOptions } from './wait-for-status.js';
