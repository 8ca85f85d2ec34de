import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { createTokenSigner } from './emulator-jwt.js';
import type { ResolvedEmulatorOptions } from './emulator-options.js';
import { RequestError } from './http-io.js';

/** SHA-256 of a text: secrets are compared, and rate-limit subjects keyed, by their digests. */
export const digest = (text: string) => createHash('sha256').update(text).digest();
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

/**
 * The gateway's authentication: Basic with the API key and secret for `POST /api/auth`, which issues a
 * signed Bearer token; `revoke` makes every token issued so far answer 401 (as after a key rotation).
 */
export function createGatewayTokens(
  config: Pick<ResolvedEmulatorOptions, 'apiKey' | 'apiSecret' | 'tokenTtlMs' | 'now'>,
  signer: ReturnType<typeof createTokenSigner>,
) {
  let generation = 0;

  function basicAuth(headers: IncomingMessage['headers']): void {
    const header = headers.authorization ?? '';
    const match = /^Basic\s+(\S+)$/i.exec(header);
    const decoded = match ? Buffer.from(match[1] as string, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    const ok = colon > 0 && sameSecret(decoded.slice(0, colon), config.apiKey) && sameSecret(decoded.slice(colon + 1), config.apiSecret);
    if (!ok) throw new RequestError(401, 'UNAUTHORIZED', 'Invalid API credentials.');
  }

  function bearerAuth(headers: IncomingMessage['headers']): void {
    const match = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '');
    const claims = match ? signer.read(match[1] as string) : undefined;
    if (!claims) throw new RequestError(401, 'UNAUTHORIZED', 'Missing or invalid access token.');
    if (claims.gen !== generation) throw new RequestError(401, 'UNAUTHORIZED', 'The access token was revoked.');
    if (config.now() >= claims.expMs) throw new RequestError(401, 'UNAUTHORIZED', 'The access token has expired.');
  }

  function issue(): string {
    const issuedAt = config.now();
    return signer.issue({ sub: config.apiKey, iat: Math.floor(issuedAt / 1000), expMs: issuedAt + config.tokenTtlMs, gen: generation });
  }

  return { basicAuth, bearerAuth, issue, revoke: () => void generation++ };
}
