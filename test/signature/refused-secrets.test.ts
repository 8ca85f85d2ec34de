import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import {
  createReceiver,
  PixhookConfigError,
  signatureHeader,
  signSha256,
  signTimestamped,
  verifySignature,
  verifyTimestampedSignature,
} from '../../src/index.js';
import { verifySignatureNow } from '../../src/signature/verify-signature.js';
import { deliver, sign, signedRequest } from '../../src/testing/index.js';
import { variantAPaid } from '../contract/fixtures.js';
import { bytesOf } from '../helpers/signing.js';

// Every form a secret takes when the variable that should hold it is unset or mangled.
const badSecrets: [string, unknown][] = [
  ['an empty string', ''],
  ['one NUL', '\0'],
  ['several NULs', '\0\0\0'],
  ['NULs and spaces', ' \0 '],
  ['undefined', undefined],
  ['null', null],
  ['a number', 123],
  ['an object', { secret: 'x' }],
  ['only whitespace', ' \t\n'],
  ['the text "undefined"', 'undefined'],
  ['the text " Undefined " (trimmed, any case)', ' Undefined '],
  ['the text "null"', 'NULL'],
  ['an empty list', []],
  ['a list holding an empty string', ['whsec_good_one', '']],
  ['a list holding a NUL', ['\0', 'whsec_good_one']],
];

const body = bytesOf(variantAPaid);
const goodHeader = `sha256=${'0'.repeat(64)}`;

// Each public door a secret enters by, as a call that must refuse it.
const entryPoints: [string, (secret: never) => unknown][] = [
  ['createReceiver', (secret) => createReceiver({ secret })],
  [
    'createReceiver with a timestamped scheme',
    (secret) => createReceiver({ secret, signature: { scheme: 'timestamped', header: 'vexy-signature' } }),
  ],
  ['verifySignature', (secret) => verifySignature({ body, signature: goodHeader, secret })],
  ['verifySignatureNow', (secret) => verifySignatureNow({ body, signature: goodHeader, secret })],
  [
    'verifyTimestampedSignature',
    (secret) => verifyTimestampedSignature({ body, signature: `t=1,v1=${'0'.repeat(64)}`, secret, now: () => 1000 }),
  ],
  ['signSha256', (secret) => signSha256(body, secret)],
  ['signTimestamped', (secret) => signTimestamped({ body, secret })],
  ['signatureHeader', (secret) => signatureHeader({ scheme: 'sha256' }, body, secret)],
  ['pixhook/testing sign', (secret) => sign(body, secret)],
  ['pixhook/testing signedRequest', (secret) => signedRequest(variantAPaid, secret)],
  [
    'pixhook/testing deliver',
    (secret) => deliver({ url: 'http://127.0.0.1:9/', body, secret, fetch: () => Promise.reject(new Error('never sent')) }),
  ],
];

/** The error a call throws or rejects with (undefined when it neither threw nor rejected). */
async function refusal(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('a secret that cannot be one is refused at every entry point', () => {
  for (const [door, call] of entryPoints) {
    it.each(badSecrets)(`${door}: %s → PixhookConfigError naming the option`, async (_what, secret) => {
      const error = await refusal(() => call(secret as never));
      expect(error).toBeInstanceOf(PixhookConfigError);
      expect((error as Error).message).toMatch(/^pixhook: `secret(\[\d+\])?` must be a non-empty string/);
    });
  }

  it('the emulator refuses such a webhookSecret before it listens', async () => {
    for (const [, secret] of badSecrets.filter(([, s]) => s !== undefined && !Array.isArray(s))) {
      const error = await refusal(async () => {
        const emulator = await startEmulator({ webhookSecret: secret as string });
        await emulator.close();
      });
      expect(error).toBeInstanceOf(PixhookConfigError);
      expect((error as Error).message).toMatch(/`webhookSecret` must be a non-empty string/);
    }
  });

  it('never puts a secret in the message, even the good one beside a bad one', async () => {
    const good = 'whsec_the_real_one_4f9a';
    for (const [door, call] of entryPoints) {
      const error = (await refusal(() => call([good, '\0'] as never))) as Error;
      expect(error).toBeInstanceOf(PixhookConfigError);
      expect(error.message).not.toContain(good);
      expect(error.message).not.toContain('\0');
      // The receiver and the verifiers take a list while rotating, and name the entry at fault; signers take one secret.
      expect(error.message).toContain(/^(createReceiver|verify)/.test(door) ? '`secret[1]`' : 'got an array');
    }
  });

  it('says what was given without the value', async () => {
    const messages = await Promise.all(
      (['', '\0', undefined, 123, '  ', 'undefined'] as unknown[]).map(
        async (secret) => ((await refusal(() => createReceiver({ secret } as never))) as Error).message,
      ),
    );
    expect(messages).toEqual([
      expect.stringContaining('got an empty string'),
      expect.stringContaining('got only NUL or whitespace characters'),
      expect.stringContaining('got undefined'),
      expect.stringContaining('got a number'),
      expect.stringContaining('got only whitespace'),
      expect.stringContaining('got the text of an unset variable'),
    ]);
  });
});

describe('a body signed with the empty key never verifies', () => {
  // HMAC pads a short key with zeros: '', '\0' and '\0\0' are one key.
  const forged = `sha256=${createHmac('sha256', '').update(body).digest('hex')}`;
  const forgedAt = (t: number) => `t=${t},v1=${createHmac('sha256', '').update(`${t}.`).update(body).digest('hex')}`;

  it.each(['', '\0', '\0\0'])('verifySignature with secret %j rejects instead of answering ok', async (secret) => {
    await expect(verifySignature({ body, signature: forged, secret })).rejects.toBeInstanceOf(PixhookConfigError);
    expect(() => verifySignatureNow({ body, signature: forged, secret })).toThrow(PixhookConfigError);
  });

  it.each(['', '\0'])('verifyTimestampedSignature with secret %j rejects instead of answering ok', async (secret) => {
    await expect(verifyTimestampedSignature({ body, signature: forgedAt(1000), secret, now: () => 1_000_000 })).rejects.toBeInstanceOf(
      PixhookConfigError,
    );
  });

  it('a receiver cannot be made with a NUL secret, so the forged delivery never reaches a handler', () => {
    expect(() => createReceiver({ secret: '\0' })).toThrow(PixhookConfigError);
  });

  it('a real secret still verifies, and the empty-key forgery does not', async () => {
    const secret = 'whsec_real';
    const real = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    expect(await verifySignature({ body, signature: real, secret })).toEqual({ ok: true, secretIndex: 0 });
    expect(await verifySignature({ body, signature: forged, secret })).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    const receiver = createReceiver({ secret }).onAny(() => {});
    expect((await receiver.receive({ method: 'POST', headers: { 'x-signature': forged }, body })).status).toBe(401);
    expect((await receiver.receive({ method: 'POST', headers: { 'x-signature': real }, body })).status).toBe(200);
  });
});
