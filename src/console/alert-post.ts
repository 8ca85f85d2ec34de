import { describeError } from '../shared/describe-error.js';
import { mustBe } from '../shared/option-checks.js';
import { redactSecrets } from '../shared/redact-secrets.js';

/** What `alertUrl` receives: `text` is what Slack's and Teams' incoming webhooks show; the rest is for your own hook. */
interface AlertPostBody {
  text: string;
  kind: string;
  message: string;
  at: string;
}

/** Attempts per alert, and the waits between them: a hook that answers 5xx or drops the connection gets two more tries. */
const attempts = 3;
const waitsMs = [500, 1500];
const timeoutMs = 10_000;

/** Checks `alertUrl` at construction: an http(s) URL, or a `PixhookConfigError` naming it. */
export function checkAlertUrl(value: unknown): URL | undefined {
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    throw mustBe(
      'alertUrl',
      'an http(s) URL (a Slack or Teams incoming webhook, or your own)',
      typeof value === 'string' ? '(not a URL)' : value,
    );
  return url;
}

/**
 * Posts one alert as JSON (`{ text, kind, message, at }`), retried on a network error, a timeout, a 429 or a 5xx.
 * Resolves undefined once a 2xx answered, else why the last attempt failed (no secret in it). Never rejects.
 */
export async function postAlert(url: URL, body: AlertPostBody): Promise<string | undefined> {
  let last = '';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.arrayBuffer().catch(() => undefined);
      if (response.ok) return undefined;
      last = `HTTP ${response.status}`;
      if (response.status !== 429 && response.status < 500) break; // a 4xx will not change: the URL or the body is wrong
    } catch (error) {
      last = redactSecrets(describeError(error));
    }
    if (attempt < attempts) await new Promise((resolve) => setTimeout(resolve, waitsMs[attempt - 1]));
  }
  return last;
}
