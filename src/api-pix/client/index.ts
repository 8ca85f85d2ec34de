export { createApiPixClient } from './create-api-pix-client.js';
export type { ApiPixCallOptions, ApiPixClient, ApiPixCreatedCharge, ApiPixExpectStatus } from './create-api-pix-client.js';
export type { ApiPixClientOptions } from './api-pix-client-options.js';
export type {
  ApiPixPayer,
  ApiPixRefundOptions,
  CreateApiPixChargeInput,
  CreateApiPixDueChargeInput,
  ListPixInput,
} from './api-pix-inputs.js';
export type { ApiPixCharge, ApiPixPerson, ApiPixReceived, ApiPixRefund, ApiPixRefundStatus, ApiPixWebhook } from './api-pix-schemas.js';
export {
  ApiPixBadRequestError,
  ApiPixForbiddenError,
  ApiPixNotFoundError,
  ApiPixProblemError,
  ApiPixRateLimitedError,
  ApiPixServerError,
  ApiPixUnauthorizedError,
} from './api-pix-errors.js';
export type { ApiPixError, ApiPixProblem, ApiPixViolation } from './api-pix-errors.js';
