import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** No inline script or style, nothing from elsewhere: the page works offline and a payload can never run. */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Headers on every answer. */
export const securityHeaders: Readonly<Record<string, string>> = {
  'content-security-policy': contentSecurityPolicy,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Not no-referrer: with it Chromium sends `Origin: null` on the console's own form posts.
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
};

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Constant time whatever the lengths: both sides are hashed first. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export const cookieName = 'pixhook_console';

/**
 * The console's secrets: the CSRF token every form carries, and the session cookie a token login
 * sets. With a `token`, both derive from it (every instance behind a balancer agrees); without, they
 * are random per process.
 */
export function createConsoleSecrets(token: string | undefined) {
  const key = token ?? randomBytes(32).toString('base64url');
  const derive = (purpose: string) => createHmac('sha256', key).update(purpose).digest('base64url');
  const csrf = derive('pixhook console csrf');
  const session = derive('pixhook console session');
  return {
    csrf,
    session,
    checkCsrf: (given: string | null | undefined) => typeof given === 'string' && sameSecret(given, csrf),
    /** True when the request carries the token (Bearer) or the login cookie. */
    authorized(headers: Headers): boolean {
      if (token === undefined) return false;
      const bearer = /^Bearer\s+(\S+)$/i.exec(headers.get('authorization') ?? '')?.[1];
      if (bearer !== undefined) return sameSecret(bearer, token);
      const cookie = readCookie(headers.get('cookie'), cookieName);
      return cookie !== undefined && sameSecret(cookie, session);
    },
    bearer: (headers: Headers) => token !== undefined && /^Bearer\s+\S+$/i.test(headers.get('authorization') ?? ''),
    loginMatches: (given: string) => token !== undefined && sameSecret(given, token),
  };
}

export type ConsoleSecrets = ReturnType<typeof createConsoleSecrets>;

function readCookie(header: string | null, name: string): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

export { isLoopback } from '../shared/loopback.js';

/**
 * A state-changing request must come from the console's own pages: `Sec-Fetch-Site` (every current
 * browser sends it) must be `same-origin` (or `none`, typed by the user), and `Origin`, when sent,
 * must be the request's own origin.
 */
export function sameOrigin(request: Request): boolean {
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none') return false;
  const origin = request.headers.get('origin');
  if (origin === null) return true;
  const host = request.headers.get('host') ?? new URL(request.url).host;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
