import { describe, expect, it } from 'vitest';
import { bytesToHex, decodeHex } from '../../src/signature/hex.js';

describe('decodeHex', () => {
  it('decodes lower- and uppercase digits', () => {
    expect(decodeHex('00ff7Fa0')).toEqual(new Uint8Array([0, 255, 127, 160]));
    expect(bytesToHex(decodeHex('DEADbeef')!)).toBe('deadbeef');
  });

  it.each(['0', 'abc', '0g', 'g0', '0z', 'z0', '-1', ' 0', '0\u00e9', '\u0660\u0661', 'ab\u{1F600}'])('rejects %j', (text) => {
    expect(decodeHex(text)).toBeUndefined();
  });
});
