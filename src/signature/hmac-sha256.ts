import type * as NodeCrypto from 'node:crypto';

/** Checks an expected HMAC-SHA256 against given bytes, in constant time. */
type HmacVerifier = (secret: string, body: Uint8Array, signature: Uint8Array) => Promise<boolean>;
type HmacSigner = (secret: string, body: Uint8Array) => Promise<Uint8Array>;

// No static `node:` import keeps this module loadable on edge runtimes; node:crypto is ~20× faster
// than Web Crypto for small bodies, so it is used wherever the runtime has it.
// Next's edge runtime throws on any use of `process.getBuiltinModule`: treat that as "absent".
/** node:crypto where the runtime has it; undefined on edge runtimes (`pixhook/psp`'s sources share it). */
export const nodeCrypto = loadNodeCrypto();

function loadNodeCrypto(): typeof NodeCrypto | undefined {
  try {
    const host = globalThis as { EdgeRuntime?: unknown; process?: { getBuiltinModule?: (id: string) => unknown } };
    if (host.EdgeRuntime !== undefined) return undefined;
    return host.process?.getBuiltinModule?.('node:crypto') as typeof NodeCrypto | undefined;
  } catch {
    return undefined;
  }
}

const encoder = new TextEncoder();

function nodeSign(crypto: typeof NodeCrypto): HmacSigner {
  return (secret, body) => Promise.resolve(crypto.createHmac('sha256', secret).update(body).digest());
}

function nodeVerifySync(crypto: typeof NodeCrypto) {
  // A KeyObject per secret, made once: createHmac with a key object skips re-importing the key (~0.25 µs).
  const keys = new Map<string, NodeCrypto.KeyObject>();
  const keyOf = (secret: string) => {
    let key = keys.get(secret);
    if (key === undefined) {
      key = crypto.createSecretKey(encoder.encode(secret));
      if (keys.size < 64) keys.set(secret, key);
    }
    return key;
  };
  return (secret: string, body: Uint8Array, signature: Uint8Array): boolean => {
    const expected = crypto.createHmac('sha256', keyOf(secret)).update(body).digest();
    return expected.length === signature.length && crypto.timingSafeEqual(expected, signature);
  };
}

function importKey(secret: string, usage: 'sign' | 'verify'): Promise<CryptoKey> {
  return globalThis.crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [usage]);
}

const webSign: HmacSigner = async (secret, body) =>
  new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', await importKey(secret, 'sign'), body as BufferSource));

// subtle.verify compares in constant time by specification.
export const webVerify: HmacVerifier = async (secret, body, signature) =>
  globalThis.crypto.subtle.verify('HMAC', await importKey(secret, 'verify'), signature as BufferSource, body as BufferSource);

export const hmacSign: HmacSigner = nodeCrypto ? nodeSign(nodeCrypto) : webSign;
/** Synchronous verification, where node:crypto exists (undefined on edge runtimes). */
export const hmacVerifySync = nodeCrypto ? nodeVerifySync(nodeCrypto) : undefined;
export const hmacVerify: HmacVerifier = hmacVerifySync
  ? (secret, body, signature) => Promise.resolve(hmacVerifySync(secret, body, signature))
  : webVerify;
