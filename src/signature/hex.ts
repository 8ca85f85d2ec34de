// Char code → nibble value, 255 for anything that is not a hex digit.
const nibbles = new Uint8Array(128).fill(255);
for (let i = 0; i < 16; i++) {
  nibbles['0123456789abcdef'.charCodeAt(i)] = i;
  nibbles['0123456789ABCDEF'.charCodeAt(i)] = i;
}

function nibble(code: number): number {
  return code < 128 ? (nibbles[code] as number) : 255;
}

/** Decodes an even-length hex string, or returns undefined when any character is not a hex digit. */
export function decodeHex(hex: string): Uint8Array | undefined {
  if (hex.length % 2 !== 0) return undefined;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0, j = 0; i < out.length; i++, j += 2) {
    const hi = nibble(hex.charCodeAt(j));
    const lo = nibble(hex.charCodeAt(j + 1));
    if ((hi | lo) > 15) return undefined;
    out[i] = (hi << 4) | lo;
  }
  return out;
}

export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}
