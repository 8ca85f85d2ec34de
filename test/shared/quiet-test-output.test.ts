import { describe, expect, it } from 'vitest';

// test/setup/volatile-redis.ts: the expected persistence warning of the test servers is dropped, and
// nothing else is.
describe('the test setup', () => {
  it('drops only PIXHOOK_REDIS_NOT_PERSISTENT warnings', async () => {
    const heard: string[] = [];
    const listener = (warning: Error & { code?: string }) => void heard.push(warning.code ?? warning.message);
    // Node prints warnings from a 'warning' listener of its own: set it aside so this test prints nothing.
    const printers = process.listeners('warning');
    process.removeAllListeners('warning');
    process.on('warning', listener);
    try {
      process.emitWarning('volatile', { code: 'PIXHOOK_REDIS_NOT_PERSISTENT' });
      process.emitWarning('volatile', 'Warning', 'PIXHOOK_REDIS_NOT_PERSISTENT');
      process.emitWarning('something else', { code: 'PIXHOOK_TEST_OTHER' });
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listener);
      for (const printer of printers) process.on('warning', printer);
    }
    expect(heard).toEqual(['PIXHOOK_TEST_OTHER']);
  });
});
