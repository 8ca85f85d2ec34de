import { PixhookConfigError } from '../../shared/pixhook-error.js';
import { nodeCrypto } from '../../signature/hmac-sha256.js';
import type { MaybePromise } from '../../shared/maybe-promise.js';

// node:crypto where the runtime has it (synchronous, incremental; the one loader in src/signature), Web
// Crypto on edge runtimes (the body then buffered until its end).
const node = nodeCrypto;

const encoder = new TextEncoder();

function hex(bytes: Uint8Array): string {
  // Node's own encoder over the same memory (no copy); elsewhere a byte at a time.
  if (node && NodeBuffer !== undefined) return NodeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
  let out = '';
  for (const byte of bytes) out += byte.toString(16).padStart(2, '0');
  return out;
}

/** Bytes hashed as they arrive: `update` per chunk, `end` once. */
export interface Digest {
  update(chunk: Uint8Array | string): void;
  /** The digest's bytes. */
  end(): MaybePromise<Uint8Array>;
}

/** The chunks as one array (no copy for one chunk). */
export function joined(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  if (chunks.length === 1 && chunks[0]!.buffer instanceof ArrayBuffer) return chunks[0] as Uint8Array<ArrayBuffer>;
  let length = 0;
  for (const chunk of chunks) length += chunk.byteLength;
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** node:crypto's incremental hash as a `Digest`: a class, so a call makes no closures. */
class NodeDigest implements Digest {
  constructor(private readonly hash: ReturnType<NonNullable<typeof node>['createHash']>) {}
  update(chunk: Uint8Array | string): void {
    this.hash.update(chunk);
  }
  // A Buffer is a Uint8Array: the digest is handed on without a copy.
  end(): Uint8Array {
    return this.hash.digest();
  }
}

/** SHA-256 over everything `update` is given. */
export function sha256(): Digest {
  if (node) return new NodeDigest(node.createHash('sha256'));
  const chunks: Uint8Array[] = [];
  return {
    update: (chunk) => void chunks.push(typeof chunk === 'string' ? encoder.encode(chunk) : chunk),
    end: async () => new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', joined(chunks))),
  };
}

/**
 * SHA-256 digests that all start with `seed`: on Node the seed is hashed once and each digest is a copy
 * of that state (`Hash#copy`), so a call neither re-encodes nor re-hashes it.
 */
export function seededSha256(seed: string): () => Digest {
  if (node) {
    const base = node.createHash('sha256').update(seed);
    return () => new NodeDigest(base.copy());
  }
  return () => {
    const digest = sha256();
    digest.update(seed);
    return digest;
  };
}

/** `text` as bytes when it is exactly `length` bytes of hex (either case), else undefined. */
export function hexBytes(text: string, length: number): Uint8Array | undefined {
  if (text.length !== length * 2 || !/^[0-9a-fA-F]+$/.test(text)) return undefined;
  if (node && NodeBuffer !== undefined) return NodeBuffer.from(text, 'hex');
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Number.parseInt(text.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** HMAC-SHA256 of `text` with `secret`, in lower-case hex. */
export function hmacSha256Hex(secret: string, text: string): MaybePromise<string> {
  if (node) return node.createHmac('sha256', secret).update(text).digest('hex');
  return globalThis.crypto.subtle
    .importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
    .then((key) => globalThis.crypto.subtle.sign('HMAC', key, encoder.encode(text)))
    .then((mac) => hex(new Uint8Array(mac)));
}

/** Lower-case hex of a digest's bytes. */
export function hexOf(bytes: MaybePromise<Uint8Array>): MaybePromise<string> {
  return bytes instanceof Uint8Array ? hex(bytes) : bytes.then(hex);
}

const NodeBuffer = (globalThis as { Buffer?: typeof Buffer }).Buffer;

/**
 * Strict base64 (its alphabet, `=` only as the last one or two characters, a length `atob` accepts) as
 * bytes, or undefined. Node's `Buffer` decodes it natively; elsewhere `atob` into a byte array (never an
 * array of one-character strings: a Woovi signature is 344 characters on every delivery).
 */
export function base64Bytes(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.length % 4 === 1 || (text.endsWith('=') && text.length % 4 !== 0)) return undefined;
  if (node && NodeBuffer !== undefined) return NodeBuffer.from(text, 'base64');
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** A public key's PEM text from PEM, or from base64 of a PEM (as Woovi publishes its keys), or undefined. */
export function pemOf(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) return trimmed;
  // base64Bytes, not atob: atob throws a DOMException on a length or padding it refuses ('x'), which is no
  // PixhookConfigError naming the key.
  const bytes = base64Bytes(trimmed.replace(/\s/g, ''));
  const decoded = bytes === undefined ? '' : new TextDecoder().decode(bytes).trim();
  return decoded.startsWith('-----BEGIN') ? decoded : undefined;
}

/** One RSA public key, parsed once, verifying RSASSA-PKCS1-v1_5 with SHA-256 (`sha256WithRSAEncryption`). */
export interface RsaKey {
  verify(data: Uint8Array, signature: Uint8Array): MaybePromise<boolean>;
}

/** Parses a PEM public key (SPKI, `BEGIN PUBLIC KEY`); throws when it is not one. */
export function rsaKey(pem: string): RsaKey {
  if (node) {
    const key = node.createPublicKey(pem);
    if (key.asymmetricKeyType !== 'rsa')
      throw new PixhookConfigError(`pixhook: \`publicKeys\` holds a ${String(key.asymmetricKeyType)} key, not an RSA one.`);
    return { verify: (data, signature) => node.verify('sha256', data, key, signature) };
  }
  const body = pem.replace(/-----[^-]+-----/g, '').replace(/\s/g, '');
  const der = Uint8Array.from(atob(body), (c) => c.charCodeAt(0));
  const imported = globalThis.crypto.subtle.importKey('spki', der, { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, ['verify']);
  return {
    verify: async (data, signature) =>
      globalThis.crypto.subtle.verify('RSASSA-PKCS1-v1_5', await imported, signature as BufferSource, data as BufferSource),
  };
}

/** Signs with an RSA private key (PEM): the test kit's Woovi signer. Node only. */
export function rsaSign(privateKeyPem: string, data: Uint8Array | string): string {
  if (!node) throw new PixhookConfigError('pixhook: `privateKey` cannot sign here: signWoovi needs node:crypto (Node, Bun or Deno).');
  return node.sign('sha256', typeof data === 'string' ? encoder.encode(data) : data, privateKeyPem).toString('base64');
}
