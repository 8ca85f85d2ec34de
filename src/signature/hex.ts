const hexPattern = /^[0-9a-fA-F]*$/;

export function isHex(text: string): boolean {
  return hexPattern.test(text);
}

/** Decodes an even-length hex string that `isHex` accepted. */
export function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

export function bytesToHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}
