import { redactedUrl } from '../../src/shared/redacted-url.js';
import { UsageError } from './cli-args.js';
import { jsonText } from './json-text.js';

/** The dev sandbox's default address (`pixhook dev` without `--port`). */
export const defaultDevUrl = 'http://127.0.0.1:4000/';

/** Exit code of `trigger` and `resend --dev` when no `pixhook dev` answers at the URL. */
export const unreachableExit = 3;

/** `--dev <url>`: an http(s) URL (the console's, as `pixhook dev` prints it last). */
export function devUrlFrom(value: string | undefined): URL {
  const url = URL.canParse(value ?? defaultDevUrl) ? new URL(value ?? defaultDevUrl) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:')
    throw new UsageError(`--dev must be the http(s) URL pixhook dev prints last, got ${jsonText(redactedUrl(value ?? ''))}`);
  return url;
}

/** The answer of a dev control, or `unreachable` with why (nothing listens, or what listens is no pixhook dev). */
export async function postDevControl(
  dev: URL,
  path: string,
  body: unknown,
): Promise<{ ok: true; status: number; json: Record<string, unknown> } | { ok: false; why: string }> {
  const target = new URL(path, dev);
  let response: Response;
  try {
    response = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(120_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: unknown } }).cause?.code;
    return {
      ok: false,
      why: `no pixhook dev answers at ${redactedUrl(dev.href)}${typeof cause === 'string' ? ` (${cause})` : ''}: start it with \`pixhook dev\` or give --dev <its URL>`,
    };
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (typeof json !== 'object' || json === null || (response.status === 404 && !('error' in json)))
    return {
      ok: false,
      why: `${redactedUrl(dev.href)} answered ${response.status}, not as pixhook dev does: is it a pixhook dev sandbox (of this version)?`,
    };
  return { ok: true, status: response.status, json: json as Record<string, unknown> };
}
