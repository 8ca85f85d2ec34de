import { describe, expect, it } from 'vitest';
import { createApiPixReceiver } from '../../src/api-pix/index.js';
import { createProcessing, createReceiver, PixhookConfigError } from '../../src/index.js';
import { createPspReceiver } from '../../src/psp/index.js';

// Found from outside: `on('transaction_payed', …)` (a typo, in a plain JS handlers module) was accepted, so the
// handler never ran while every payment was answered 200 — the money was never applied. A registration that can
// never run is refused where it is made, naming the name.
const receivers = {
  gateway: () => createReceiver({ secret: 'whsec_registration' }),
  'api-pix': () => createApiPixReceiver({ auth: { urlSecret: { secret: 'url-secret-0123456789' } } }),
  psp: () => createPspReceiver({ psp: 'pagbank', token: 'tok-registration' }),
  processing: () => createProcessing(),
};

describe('registering handlers', () => {
  it.each(Object.entries(receivers))('%s: on() refuses a name that is no event, naming it', (_name, make) => {
    const receiver = make() as unknown as { on(name: unknown, handler: unknown): unknown };
    const handler = () => {};
    for (const name of ['transaction_payed', 'pix_recieved', '*', undefined]) {
      expect(() => receiver.on(name, handler)).toThrow(PixhookConfigError);
      expect(() => receiver.on(name, handler)).toThrow(`\`on(${JSON.stringify(String(name))})\``);
    }
    expect(() => receiver.on(['transaction_paid', 'transaction_payed'], handler)).toThrow('"transaction_payed"');
  });

  it('a known name of either family registers; a handler that is not a function is refused on every method', () => {
    const receiver = createProcessing();
    expect(() => receiver.on(['transaction_paid', 'pix_received', 'transfer_completed'], () => {})).not.toThrow();
    expect(receiver.handlerCount()).toBe(3);
    const loose = receiver as unknown as Record<'on' | 'onAny' | 'onUnknown' | 'onError', (...args: unknown[]) => unknown>;
    expect(() => loose.on('transaction_paid', undefined)).toThrow('`on(…)` needs a handler function');
    for (const method of ['onAny', 'onUnknown', 'onError'] as const)
      expect(() => loose[method]('not a function')).toThrow(`\`${method}(…)\` needs a handler function`);
    expect(receiver.handlerCount()).toBe(3);
  });
});
