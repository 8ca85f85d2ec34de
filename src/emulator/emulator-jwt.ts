import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

interface TokenClaims {
  /** The API key the token was issued to. */
  sub: string;
  /** Epoch seconds. */
  iat: number;
  /** Epoch milliseconds (the emulator's clock is injectable, so finer than the JWT `exp`). */
  expMs: number;
  /** Tokens of an older generation were revoked. */
  gen: number;
  jti: string;
}

const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/** HS256 JWTs keyed with a secret that never leaves this emulator instance. */
export function createTokenSigner() {
  const key = randomBytes(32);
  const mac = (text: string) => createHmac('sha256', key).update(text).digest();
  return {
    issue(claims: Omit<TokenClaims, 'jti'>): string {
      const head = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
      const body = base64url(JSON.stringify({ ...claims, exp: Math.floor(claims.expMs / 1000), jti: randomBytes(8).toString('hex') }));
      return `${head}.${body}.${base64url(mac(`${head}.${body}`))}`;
    },
    /** The claims of a token this instance issued, or undefined for anything else. */
    read(token: string): TokenClaims | undefined {
      const [head, body, signature] = token.split('.');
      if (!head || !body || !signature) return undefined;
      const expected = mac(`${head}.${body}`);
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      try {
        return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as TokenClaims;
      } catch {
        return undefined;
      }
    },
  };
}
