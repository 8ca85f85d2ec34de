import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ProblemAnswer } from './problem-answer.js';

const digest = (text: string) => createHash('sha256').update(text).digest();
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

interface TokenConfig {
  clientId: string;
  clientSecret: string;
  tokenTtlMs: number;
  now: () => number;
}

/** The PSP's OAuth2 (`client_credentials` with Basic auth): tokens issued, checked, and revoked all at once. */
export function createApiPixTokens(config: TokenConfig): {
  issue(headers: IncomingMessage['headers'], body: Buffer): { status: number; body: unknown };
  check(headers: IncomingMessage['headers']): void;
  revoke(): void;
} {
  const tokens = new Map<string, { expiresAt: number; generation: number }>();
  let generation = 0;

  function check(headers: IncomingMessage['headers']): void {
    const token = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
    const entry = token === undefined ? undefined : tokens.get(token);
    if (!entry || entry.generation !== generation || config.now() >= entry.expiresAt) {
      throw new ProblemAnswer(401, 'AcessoNegado', 'Não autorizado', 'O token de acesso está ausente, expirado ou revogado.');
    }
  }

  function issue(headers: IncomingMessage['headers'], body: Buffer): { status: number; body: unknown } {
    const basic = /^Basic\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
    const decoded = basic === undefined ? '' : Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const id = colon > 0 ? decodeURIComponent(decoded.slice(0, colon)) : '';
    const secret = colon > 0 ? decodeURIComponent(decoded.slice(colon + 1)) : '';
    const form = new URLSearchParams(body.toString('utf8'));
    if (form.get('grant_type') !== 'client_credentials') return { status: 400, body: { error: 'unsupported_grant_type' } };
    if (!(sameSecret(id, config.clientId) && sameSecret(secret, config.clientSecret))) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Credenciais inválidas.' } };
    }
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, { expiresAt: config.now() + config.tokenTtlMs, generation });
    return {
      status: 200,
      body: {
        access_token: token,
        token_type: 'Bearer',
        expires_in: Math.floor(config.tokenTtlMs / 1000),
        scope: 'cob.write cob.read cobv.write cobv.read pix.write pix.read webhook.write webhook.read',
      },
    };
  }

  return { issue, check, revoke: () => void generation++ };
}
