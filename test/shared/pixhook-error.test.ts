import { describe, expect, it } from 'vitest';
import { PixNetworkError, PixValidationError } from '../../src/client/client-errors.js';
import { RedisUnavailableError } from '../../src/redis/redis-unavailable-error.js';
import { PixhookConfigError, PixhookError, PixhookTimeoutError } from '../../src/shared/pixhook-error.js';
import { withTimeout } from '../../src/shared/with-timeout.js';

describe('PixhookError: the code on `.code`, a plain message', () => {
  it.each([
    ['PixhookError', new PixhookError('handler_failed', 'the handler threw'), 'handler_failed', 'the handler threw'],
    ['PixhookTimeoutError', new PixhookTimeoutError('the store took longer than 10 ms'), 'timeout', 'the store took longer than 10 ms'],
    ['RedisUnavailableError', new RedisUnavailableError('redis is not connected'), 'redis_unavailable', 'redis is not connected'],
    [
      'PixhookConfigError',
      new PixhookConfigError('pixhook: `secret` must be a string'),
      'config_invalid',
      'pixhook: `secret` must be a string',
    ],
    ['PixNetworkError', new PixNetworkError('connection refused'), 'network_error', 'connection refused'],
    [
      'PixValidationError',
      new PixValidationError('createCharge', [{ path: 'amount', message: 'too small' }]),
      'validation_failed',
      'createCharge: amount: too small',
    ],
  ])('%s keeps its code apart from its message', (_name, error, code, message) => {
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
  });

  it('a timeout from withTimeout reads as a sentence, without "timeout: " in front', async () => {
    const error = await withTimeout(new Promise(() => {}), 1, 'the store').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PixhookTimeoutError);
    expect((error as PixhookError).message).toBe('the store took longer than 1 ms');
  });

  it('the root no longer exports messageOf', async () => {
    expect(Object.keys(await import('../../src/index.js'))).not.toContain('messageOf');
  });
});
