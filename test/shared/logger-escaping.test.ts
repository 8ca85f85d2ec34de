import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createReceiver } from '../../src/index.js';
import { escapeLogFields } from '../../src/shared/logger.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// Issue 20: "A JSON-only logger gets signed ids with U+009B and U+2028 raw." pino escapes only what
// JSON requires, so a C1 CSI (U+009B, one-character `ESC [`) and U+2028 reached the terminal raw.
const secret = 'whsec_logger_escaping';
const hostile = 'tx\u009b31mred\u2028forged\u202eevil\u0085';

function delivery(payload: unknown) {
  const body = bytesOf(payload);
  return { method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body };
}

function pinoInto(): { logger: pino.Logger; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), text: () => text };
}

describe('every string pixhook hands to a logger has its control characters escaped', () => {
  it('pino: signed ids and event names holding U+009B, U+2028, a bidi override and NEL are written escaped', async () => {
    const { logger, text } = pinoInto();
    const receiver = createReceiver({ secret, logger }).on('transaction_paid', () => {
      throw new Error(`handler saw ${hostile}`);
    });
    await receiver.receive(
      delivery({
        event: 'transaction_paid',
        timestamp: '2026-11-23T10:00:00Z',
        data: { id: hostile, status: 'paid', amountInCents: 1000 },
      }),
    );
    await receiver.receive(delivery({ event: `evil_${hostile}`, data: { id: hostile } }));
    await receiver.receive(
      delivery({
        event: 'transaction_paid',
        timestamp: '2026-11-23T10:00:00Z',
        data: { id: 'tx_ok', status: hostile, amountInCents: 1000 },
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    const output = text();
    const lines = output.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const raw of ['\u009b', '\u2028', '\u202e', '\u0085']) expect(output).not.toContain(raw);
    // Still there, readable: written as \u009b (JSON doubles the backslash).
    expect(output).toContain('tx\\\\u009b31mred\\\\u2028forged');
    for (const line of lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
  });

  it('escapeLogFields leaves clean fields as they are (the same object) and copies only what it rewrites', () => {
    const clean = { key: 'transaction_paid:tx_1', status: 200, nested: { id: 'tx_1' }, list: ['a'] };
    expect(escapeLogFields(clean)).toBe(clean);
    const dirty = { key: 'k', nested: { id: 'a\u009bb' }, list: ['ok', 'x\u2028y'], error: new Error('kept as is') };
    const escaped = escapeLogFields(dirty) as typeof dirty;
    expect(escaped).toEqual({ key: 'k', nested: { id: 'a\\u009bb' }, list: ['ok', 'x\\u2028y'], error: dirty.error });
    expect(dirty.nested.id).toBe('a\u009bb');
  });
});
