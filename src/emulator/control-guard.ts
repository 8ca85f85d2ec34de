import type { IncomingMessage } from 'node:http';
import { isLoopback } from '../shared/loopback.js';
import { RequestError } from './http-io.js';

const header = (request: IncomingMessage, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * The `/_emulator` controls pay charges and send signed webhooks, so they answer this
 * machine's own tools only, with the console's origin rules: a loopback `Host` (a DNS-rebinding page
 * is refused), no cross-site `Sec-Fetch-Site`, an `Origin` (when sent) that is the emulator's own, and
 * a body only as `application/json` (a cross-origin page cannot send one without a preflight the
 * emulator never grants). A control without a body needs no content type.
 */
export function checkControlRequest(request: IncomingMessage, method: string, body: Buffer): void {
  const host = header(request, 'host') ?? '';
  if (!isLoopback(host))
    throw new RequestError(403, 'FORBIDDEN', 'The /_emulator controls answer this machine only (a loopback Host such as 127.0.0.1).');
  const site = header(request, 'sec-fetch-site');
  const origin = header(request, 'origin');
  let sameOrigin = site === undefined || site === 'same-origin' || site === 'none';
  if (sameOrigin && origin !== undefined) sameOrigin = URL.canParse(origin) && new URL(origin).host === host.toLowerCase();
  if (!sameOrigin) throw new RequestError(403, 'FORBIDDEN', 'The /_emulator controls are not open to other origins.');
  if (method === 'GET' || method === 'HEAD') return;
  const type = header(request, 'content-type');
  if ((type !== undefined || body.length > 0) && !/^application\/json\s*(?:;|$)/i.test(type ?? ''))
    throw new RequestError(415, 'UNSUPPORTED_MEDIA_TYPE', 'The /_emulator controls take application/json only.');
}
