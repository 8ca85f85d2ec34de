// Woovi's signature header decoded once per delivery: strict base64 through Node's Buffer (the Web path,
// through atob, is in web-crypto.test.ts), refusing what atob refuses.
import { describe, expect, it } from 'vitest';
import { base64Bytes } from '../../src/sources/shared/crypto.js';

describe('base64Bytes under Node', () => {
  it('decodes padded and unpadded base64 as Buffer does', () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 251, 252, 253, 254, 255]);
    for (const length of [9, 8, 7]) {
      const text = Buffer.from(bytes.subarray(0, length)).toString('base64');
      expect(new Uint8Array(base64Bytes(text)!)).toEqual(new Uint8Array(bytes.subarray(0, length)));
      expect(new Uint8Array(base64Bytes(text.replace(/=+$/, ''))!)).toEqual(new Uint8Array(bytes.subarray(0, length)));
    }
  });

  it('refuses other alphabets, a padding inside, a length atob refuses, and the empty text', () => {
    for (const bad of ['not base64!', 'a-b_', 'abcde', 'ab=c', 'abc==', 'abcdef=', '']) expect(base64Bytes(bad)).toBeUndefined();
  });
});
