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

/** An HMAC-SHA256 in progress: fed bytes, then its digest (node:crypto's `Hmac`, as far as pixhook uses it). */
export interface HmacState {
  update(data: Uint8Array): unknown;
  digest(): Uint8Array;
}

function nodeHmacStart(crypto: typeof NodeCrypto): (secret: string) => HmacState {
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
  return (secret) => crypto.createHmac('sha256', keyOf(secret));
}

/** Starts an HMAC-SHA256 keyed by `secret`, where node:crypto exists (undefined on edge runtimes): the streaming verifier feeds it chunks. */
export const hmacStart = nodeCrypto ? nodeHmacStart(nodeCrypto) : undefined;

/** Constant-time equality of a computed digest and the given one (node:crypto's `timingSafeEqual`). */
export function digestsEqual(expected: Uint8Array, given: Uint8Array): boolean {
  return expected.length === given.length && nodeCrypto!.timingSafeEqual(expected, given);
}

function nodeVerifySync(start: (secret: string) => HmacState) {
  return (secret: string, body: Uint8Array, signature: Uint8Array): boolean => {
    const state = start(secret);
    state.update(body);
    return digestsEqual(state.digest(), signature);
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
export const hmacVerifySync = hmacStart ? nodeVerifySync(hmacStart) : undefined;
export const hmacVerify: HmacVerifier = hmacVerifySync
  ? (secret, body, signature) => Promise.resolve(hmacVerifySync(secret, body, signature))
  : webVerify;
