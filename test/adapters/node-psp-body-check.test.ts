import { afterEach, describe, expect, it } from 'vitest';
import { sendInParts, split, spyChecks } from '../helpers/send-in-parts.js';
import { internalsOf } from '../../src/adapter-kit/index.js';
import { createPspReceiver } from '../../src/psp/index.js';
import { asaas, pagbank, woovi, type PspProfile } from '../psp/psp-profiles.js';

// A PSP receiver over node:http checks a signed body (PagBank's SHA-256, Woovi's RSA) as it arrives: each
// chunk the server reads is fed to the source's check before the next one is sent, so the chunks really are
// separate, never by luck (the pattern of node-body-check.test.ts).

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const state = { id: 'chunked0001', status: 'paid', amountInCents: 1990 } as const;
const encoder = new TextEncoder();

describe.each([pagbank, woovi] as PspProfile[])('node:http adapter: a $psp body checked as it arrives', (profile) => {
  it('feeds every chunk to the source check as it arrives and answers 200', async () => {
    const delivery = await profile.delivery(state, undefined);
    let handled = 0;
    const receiver = createPspReceiver({ ...profile.options(''), maxBodyBytes: 4096 }).onAny(() => void handled++);
    const { fed, nextChunk, ended } = spyChecks(receiver);
    const parts = split(encoder.encode(delivery.body), 3);
    const res = await sendInParts(receiver, parts, delivery.headers, nextChunk, closers);
    expect(res.status).toBe(200);
    expect(ended()).toBe(1);
    expect(fed).toEqual(parts.map((part) => part.byteLength));
    expect(handled).toBe(1);
  });

  it('keeps the raw bytes whole for onInvalid after a chunked check (a body that is not JSON: 400)', async () => {
    const body = '{"not":"json" , x: [1,2,3]}   ';
    const signed = await profile.delivery(state, undefined);
    const headers = { ...signed.headers, ...(await resigned(profile, body)) };
    const kept: Uint8Array[] = [];
    const receiver = createPspReceiver({ ...profile.options(''), onInvalid: ({ bytes }) => void kept.push(bytes) });
    const { fed, nextChunk } = spyChecks(receiver);
    const res = await sendInParts(receiver, split(encoder.encode(body), 4), headers, nextChunk, closers);
    expect(res.status).toBe(400);
    expect(fed.length).toBe(4);
    expect(Buffer.from(kept[0]!).toString()).toBe(body);
  });

  it('refuses a body changed in its last chunk: 401 signature_mismatch', async () => {
    const delivery = await profile.delivery(state, undefined);
    const tampered = encoder.encode(delivery.body);
    tampered[tampered.length - 2] = 0x20;
    const receiver = createPspReceiver(profile.options('')).onAny(() => {
      throw new Error('a forged body must never reach a handler');
    });
    const { fed, nextChunk, ended } = spyChecks(receiver);
    const res = await sendInParts(receiver, split(tampered, 2), delivery.headers, nextChunk, closers);
    expect(res.status).toBe(401);
    expect(ended()).toBe(1);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'signature_mismatch' });
    expect(fed.length).toBe(2);
  });

  it('refuses a chunked body over the limit the same way: 413 body_too_large', async () => {
    const delivery = await profile.delivery(state, undefined);
    const parts = split(encoder.encode(delivery.body), 6);
    const receiver = createPspReceiver({ ...profile.options(''), maxBodyBytes: 2 * parts[0]!.byteLength + 1 });
    const { fed, nextChunk } = spyChecks(receiver);
    let sent = 0;
    // Past the limit the adapter stops feeding: the third chunk wakes nobody, so the sender goes on by itself.
    const ready = () => (++sent <= 2 ? nextChunk() : Promise.resolve());
    const res = await sendInParts(receiver, parts, delivery.headers, ready, closers);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'body_too_large' });
    expect(fed.length).toBe(2);
  });

  it('starts no check without its header: the source refuses it as before (signature_missing)', async () => {
    const delivery = profile.unsigned(await profile.delivery(state, undefined));
    const receiver = createPspReceiver(profile.options(''));
    const spy = spyChecks(receiver);
    const res = await sendInParts(receiver, [encoder.encode(delivery.body)], delivery.headers, () => Promise.resolve(), closers);
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject({ error: 'signature_missing' });
    expect(spy.started()).toBe(0);
  });
});

describe('a source without a body check', () => {
  it('offers none to the adapters (Asaas authenticates by its token header)', () => {
    expect(internalsOf(createPspReceiver(asaas.options(''))).bodyCheck).toBeUndefined();
  });
});

/** The signature header of `body` as the profile's PSP signs it. */
async function resigned(profile: PspProfile, body: string): Promise<Record<string, string>> {
  const { signPagBank, signWoovi } = await import('../../src/testing/index.js');
  const { pagbankToken, wooviKeys } = await import('../psp/psp-profiles.js');
  return profile.psp === 'pagbank'
    ? { 'x-authenticity-token': await signPagBank({ token: pagbankToken, body }) }
    : { 'x-webhook-signature': signWoovi({ privateKey: wooviKeys.privateKey, body }) };
}
