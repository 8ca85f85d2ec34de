import type { JsonObject } from '../../events/event-types.js';
import { object } from './charge-event.js';
import { httpGet, type GetAnswer, type HttpGet } from './http-get.js';

/** A PSP API read: the record, a 404, or why it could not be read (never a secret). */
export type RecordRead =
  { status: 'found'; record: JsonObject } | { status: 'not_found'; hint: string } | { status: 'unavailable'; hint: string };

/**
 * `GET url` with `headers`, bounded by `signal` (the pipeline's fetch timeout): a 200 with a JSON object
 * is the record, a 404 is `not_found`; anything else — a network error, a timeout, a redirect, a 429, a
 * 5xx, a 401 of a wrong credential, an answer over 1 MiB — is `unavailable`, answered 503 so the PSP's
 * retry fetches again. Through undici's keep-alive pools on Node, node:http on Bun and Deno (`httpGet`).
 */
export async function fetchRecord(
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  get: HttpGet = httpGet,
): Promise<RecordRead> {
  let answer: GetAnswer;
  try {
    answer = await get(url, { accept: 'application/json', ...headers }, signal);
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    return {
      status: 'unavailable',
      hint: `GET ${pathOf(url)} failed (${name === 'AbortError' || name === 'TimeoutError' || signal.aborted ? 'timeout' : name})`,
    };
  }
  if (answer.status === 404) return { status: 'not_found', hint: `GET ${pathOf(url)} answered 404` };
  if (answer.status !== 200 || answer.text === undefined)
    return { status: 'unavailable', hint: `GET ${pathOf(url)} answered ${String(answer.status)}` };
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    return { status: 'unavailable', hint: `GET ${pathOf(url)} answered 200 without JSON` };
  }
  const record = object(json);
  return record === undefined
    ? { status: 'unavailable', hint: `GET ${pathOf(url)} answered 200 without an object` }
    : { status: 'found', record };
}

/** The path only: a query could hold a credential. */
function pathOf(url: string): string {
  const at = url.indexOf('?');
  try {
    return new URL(at === -1 ? url : url.slice(0, at)).pathname;
  } catch {
    return '(url)';
  }
}

/** `base` without a trailing slash, checked at construction. */
export function baseUrl(name: string, value: unknown, fallback: string, fail: (option: string, rest: string) => never): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string') return fail(name, 'must be an http(s) URL string.');
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return fail(name, 'must be an http(s) URL.');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return fail(name, 'must be an http(s) URL.');
  return value.replace(/\/+$/, '');
}
