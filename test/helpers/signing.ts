import { createHmac } from 'node:crypto';

// Signatures in tests come from node:crypto directly, independent of the code under test.
export function signBytes(body: Uint8Array | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function bytesOf(value: unknown): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
}
