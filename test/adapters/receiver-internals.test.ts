import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createApiPixReceiver } from '../../src/api-pix/index.js';
import { internalsOf, withReceive } from '../../src/adapter-kit/index.js';
import { createReceiver, PixhookConfigError } from '../../src/index.js';

const secret = 'whsec_internals';

// The adapters' part of a receiver is a declared member of `InternalReceiver`, read through `internalsOf`:
// never on what a merchant enumerates, logs or copies.
describe("a receiver's internals", () => {
  it('are read by internalsOf, and stay out of keys, logs and JSON', () => {
    const receiver = createReceiver({ secret });
    expect(internalsOf(receiver).maxBodyBytes).toBe(1024 * 1024);
    expect(Object.keys(receiver)).not.toContain('internals');
    expect(inspect(receiver)).not.toContain('internals');
    expect(JSON.stringify(receiver)).not.toContain('maxBodyBytes');
  });

  it('do not travel with a copy: only a receiver pixhook made is served', () => {
    const receiver = createReceiver({ secret });
    expect(() => internalsOf({ ...receiver })).toThrow(PixhookConfigError);
    expect(() => internalsOf({ ...receiver })).toThrow('pixhook: `receiver` must be a receiver made by createReceiver().');
  });

  it("are the API Pix receiver's too, and withReceive's copy gets its own with the new receive", async () => {
    const apiPix = createApiPixReceiver({ auth: { urlSecret: { secret: 's3cret-value-long-enough' } } });
    expect(internalsOf(apiPix).peer).toBe(true);
    const receiver = createReceiver({ secret });
    const forwarded = withReceive(receiver, () => Promise.resolve(internalsOf(receiver).reject('internal_error')));
    expect(internalsOf(forwarded)).not.toBe(internalsOf(receiver));
    expect(internalsOf(forwarded).maxBodyBytes).toBe(internalsOf(receiver).maxBodyBytes);
    expect(await internalsOf(forwarded).handle({ headers: {}, body: undefined })).toMatchObject({ status: 500 });
  });
});
