import { safeJson } from './escape-html.js';
import { securityHeaders } from './console-security.js';

/** Every answer carries the security headers (CSP, nosniff, no framing, no caching). */
export function withSecurity(response: Response): Response {
  for (const [name, value] of Object.entries(securityHeaders)) if (!response.headers.has(name)) response.headers.set(name, value);
  return response;
}

export function htmlPage(text: string, status = 200): Response {
  return new Response(text, { status, headers: { 'content-type': 'text/html; charset=utf-8' } });
}

export function jsonAnswer(value: unknown, status = 200): Response {
  return new Response(safeJson(value), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });
}

export function redirect(location: string, headers: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, ...headers } });
}

/** A refusal: JSON for the API and scripts, a short page for a browser. */
export function refusal(status: number, error: string, message: string, wantsJson: boolean): Response {
  if (wantsJson) return jsonAnswer({ error, message }, status);
  const escaped = message.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return htmlPage(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${status} · pixhook console</title></head><body><main><h1>${status}</h1><p>${escaped}</p></main></body></html>`,
    status,
  );
}
