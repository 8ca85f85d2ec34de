import { optionNames } from '../shared/known-options.js';
import type { PostgresPaymentBookOptions } from './postgres-payment-book.js';

/** Every option postgresPaymentBook takes. */
export const postgresPaymentBookOptionNames = optionNames<PostgresPaymentBookOptions>()([
  'db',
  'inbox',
  'maxTimeline',
  'releaseLeaseMs',
  'now',
  'table',
  'schema',
]);
