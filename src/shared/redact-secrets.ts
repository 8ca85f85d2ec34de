import { redactedUrlsIn } from './redacted-url.js';

// `api_key=…`, `token: …`, `"secret":"…"`, `password=…` (and `apikey`, `access_token`, `client_secret` …)
// outside URLs too: the value runs to the next space, quote, comma, `&` or `;`.
const namedValue = /(\b[\w-]*(?:api[_-]?key|token|secret|passw(?:or)?d|pwd)\b["']?\s*[:=]\s*["']?)(?!\*\*\*)[^\s"'&;,<>)\]}]+/gi;
const bearer = /(\bBearer\s+)[A-Za-z0-9._~+/=-]+/gi;
const webhookSecret = /\bwhsec_[A-Za-z0-9+/=_-]+/g;

/**
 * Free text (an error message, a log line) fit to keep and show: URL passwords and credential-like
 * query values (`redactedUrlsIn`), `api_key=` / `token=` / `secret=` / `password=` values, `Bearer …`
 * tokens and `whsec_…` secrets become `***`. Everything else is kept as written; escaping is the
 * printer's job. Never throws.
 */
export function redactSecrets(text: string): string {
  if (typeof text !== 'string') return '';
  return redactedUrlsIn(text).replace(webhookSecret, 'whsec_***').replace(bearer, '$1***').replace(namedValue, '$1***');
}
