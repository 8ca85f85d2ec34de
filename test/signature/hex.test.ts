import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bytesToHex, decodeHex, decodePortably } from '../../src/signature/hex.js';

describe('decodeHex', () => {
  it('decodes lower- and uppercase digits', () => {
    expect([...decodeHex('00ff7Fa0')!]).toEqual([0, 255, 127, 160]);
    expect(bytesToHex(decodeHex('DEADbeef')!)).toBe('deadbeef');
  });

  it.each(['0', 'abc', '0g', 'g0', '0z', 'z0', '-1', ' 0', '0\u00e9', '\u0660\u0661', 'ab\u{1F600}'])('rejects %j', (text) => {
    expect(decodeHex(text)).toBeUndefined();
  });
});

describe('decodeHex on Buffer and without it', () => {
  // Node decodes through Buffer; edge runtimes through the portable loop. Both must accept and reject alike.
  const alphabet = '0123456789abcdefABCDEFgGzZ -+\u00e9\u0660x';
  it('gives the same answer for every 64-character string, hex or not', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...alphabet), { minLength: 64, maxLength: 64 }),
        fc.nat(63),
        fc.boolean(),
        (chars, at, spoil) => {
          if (spoil) chars[at] = 'g';
          const text = `sha256=${chars.join('')}`;
          const viaBuffer = decodeHex(text, 7);
          const portable = decodePortably(text, 7, 32);
          expect(viaBuffer === undefined ? undefined : [...viaBuffer]).toEqual(portable === undefined ? undefined : [...portable]);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('decodes a valid digest the same way, into a Buffer', () => {
    const hex = 'ab'.repeat(16) + 'CD'.repeat(16);
    const decoded = decodeHex(hex)!;
    expect(Buffer.isBuffer(decoded)).toBe(true);
    expect([...decoded]).toEqual([...decodePortably(hex, 0, 32)!]);
  });
});
