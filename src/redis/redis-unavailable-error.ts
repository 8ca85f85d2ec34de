import { PixhookError } from '../index.js';

/** Thrown (and answered 503 `store_unavailable`) while Redis cannot be reached. */
export class RedisUnavailableError extends PixhookError {
  override name = 'RedisUnavailableError';
  constructor(message: string) {
    super('redis_unavailable', message);
  }
}
