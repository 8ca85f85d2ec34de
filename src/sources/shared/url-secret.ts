import { sameText } from './constant-time.js';

/** The value of query parameter `param` in a request target, decoded; undefined when absent or unreadable. */
export function queryParam(url: string | undefined, param: string): string | undefined {
  if (url === undefined) return undefined;
  const at = url.indexOf('?');
  if (at === -1) return undefined;
  try {
    return new URLSearchParams(url.slice(at + 1)).get(param) ?? undefined;
  } catch {
    return undefined;
  }
}

/** True when the target's `param` equals `secret` (compared in constant time). */
export function urlSecretMatches(url: string | undefined, param: string, secret: string): boolean {
  return sameText(queryParam(url, param), secret);
}
