import { redactedUrlsIn } from './redacted-url.js';

// `api_key=…`, `token: …`, `"secret":"…"`, `password=…` (and their `-`/`_`/camel variants) outside URLs.
const namedSecret =
  /((?:api[_-]?key|apikey|access[_-]?token|refresh[_-]?token|token|secret|client[_-]?secret|password|passwd|pwd)["']?\s*[=:]\s*["']?)([^\s"'&,;}]+)/gi;
// An Authorization header's credential: `Bearer …`, `Basic …`.
const bearer = /\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/]+=*/g;
// Webhook secrets in the shape pixhook, Stripe and Svix print them.
const webhookSecret = /\bwhsec_[A-Za-z0-9_+/=-]+/g;

/**
 * Free text (an error message, a log line) fit to show: URL passwords and credential-like query
 * values (`redactedUrlsIn`), `api_key=` / `token=` / `secret=` / `password=` values, `Bearer …` and
 * `Basic …` credentials, and `whsec_…` secrets are replaced by `***`. Everything else is kept as it
 * is; escaping is the printer's job. The one redaction for logs, the journal, the console and the CLI.
 */
export function redactSecrets(text: string): string {
  // Callers hand it whatever was thrown: a non-string is never shown.
  if (typeof text !== 'string') return '';
  return redactedUrlsIn(text)
    .replace(webhookSecret, 'whsec_***')
    .replace(bearer, '$1 ***')
    .replace(namedSecret, (whole, name: string, value: string) => (value === '***' ? whole : `${name}***`));
}
