import { describe, expect, it } from 'vitest';
import { createReceiver, type Logger } from '../../src/index.js';
import { describeError } from '../../src/shared/describe-error.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// Issue 20: "A handler that throws a plain object has the whole object written to the log line,
// `secret` field included." Thrown values are described by their type, code and message only.
const secret = 'whsec_describe_error';

function paid(id: string) {
  return { event: 'transaction_paid', timestamp: '2026-11-23T10:00:00Z', data: { id, status: 'paid', amountInCents: 1000 } };
}

function delivery(payload: unknown) {
  const body = bytesOf(payload);
  return { method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body };
}

function codedError(): Error {
  return Object.assign(new Error('connect refused'), { code: 'ECONNREFUSED', password: 's3cr3t' });
}

const throwingGetter = () =>
  Object.defineProperty({}, 'message', {
    enumerable: true,
    get() {
      throw new Error('getter');
    },
  });

const hostileProxy = () =>
  new Proxy(
    {},
    new Proxy(
      {},
      {
        get: () => () => {
          throw new Error('trap');
        },
      },
    ),
  );

const throwables: [string, () => unknown, string][] = [
  ['a plain object with a secret', () => ({ secret: 's3cr3t', message: 'x' }), 'Object: x'],
  ['a string', () => 'plain words', 'plain words'],
  ['null', () => null, 'null'],
  ['a number', () => 42, 'number: 42'],
  ['an Error with a code', codedError, 'Error: connect refused (code ECONNREFUSED)'],
  ['an object with a code, no message', () => ({ code: 'E_OWN', token: 's3cr3t' }), 'Object (code E_OWN)'],
  ['an object whose message getter throws', throwingGetter, 'Object'],
  ['a Proxy that throws on every trap', hostileProxy, 'object'],
  [
    'an Error whose cause holds a secret',
    () => new TypeError('fetch failed', { cause: { code: 'ECONNRESET', secret: 's3cr3t' } }),
    'TypeError: fetch failed (cause: Object (code ECONNRESET))',
  ],
  ['a message with a forged line and a C1 CSI', () => new Error('a\nforged\u009b31m'), 'Error: a\\u000aforged\\u009b31m'],
];

describe('describeError: type, code and message only', () => {
  it.each(throwables)('%s', (_what, make, expected) => {
    const text = describeError(make());
    expect(text).toBe(expected);
    expect(text).not.toContain('s3cr3t');
  });

  it.each(throwables)(
    'a handler throwing %s: the log line and the answer say type/code/message only, nothing crashes',
    async (_what, make) => {
      const lines: { level: string; fields: Record<string, unknown>; message: string | undefined }[] = [];
      const capture = (level: string) => (fields: object, message?: string) =>
        void lines.push({ level, fields: fields as Record<string, unknown>, message });
      const logger: Logger = { info: capture('info'), warn: capture('warn'), error: capture('error') };
      const receiver = createReceiver({ secret, logger }).on('transaction_paid', () => {
        throw make();
      });
      const result = await receiver.receive(delivery(paid('tx_describe')));
      expect(result).toMatchObject({ status: 500, reason: 'handler_failed' });
      const failure = lines.find((line) => line.fields['error'] !== undefined);
      expect(failure?.fields['error']).toBe(describeError(make()));
      const everything = JSON.stringify(lines) + JSON.stringify(result);
      expect(everything).not.toContain('s3cr3t');
    },
  );
});
