import type { IncomingMessage, ServerResponse } from 'node:http';
import { PixhookConfigError } from '../../index.js';
import { checkControlRequest } from '../control-guard.js';
import { RequestError, readBody, sendJson } from '../http-io.js';
import type { PspControlParts } from './psp-controls.js';
import { pspControls } from './psp-controls.js';

/** One request the emulator answered. No credentials. */
export interface PspRequestLogEntry {
  method: string;
  path: string;
  status: number;
}

/**
 * The PSP's confirmation API (its credential checked, an injected fetch fault first), its extra routes
 * (Woovi's public keys) and the `/_emulator` controls (this machine's own tools only).
 */
export function servePspRequest(parts: PspControlParts, log: PspRequestLogEntry[]) {
  const controls = pspControls(parts);
  const extra = parts.profile.extraRoutes?.() ?? [];

  function api(method: string, path: string, request: IncomingMessage): [number, unknown, Record<string, string>?] {
    const route = extra.find((r) => r.method === method && r.path === path);
    if (route) return [200, route.handle()];
    const match = parts.profile.recordPath?.exec(path);
    if (!match || method !== 'GET') throw new RequestError(404, 'NOT_FOUND', `No route ${method} ${path}.`);
    const fault = parts.fetchFaults[0];
    if (fault) {
      if (--fault.times === 0) parts.fetchFaults.shift();
      return [fault.status, { message: 'Injected by the emulator.' }, fault.status === 429 ? { 'retry-after': '1' } : {}];
    }
    if (parts.profile.authorized && !parts.profile.authorized(request.headers))
      throw new RequestError(401, 'UNAUTHORIZED', 'The credential is missing or wrong.');
    const record = parts.state.record(decodeURIComponent(match[1] as string));
    if (!record) throw new RequestError(404, 'NOT_FOUND', 'No such resource.');
    return [200, record];
  }

  return async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const method = (request.method ?? 'GET').toUpperCase();
    const path = new URL(request.url ?? '/', 'http://emulator').pathname;
    let status = 500;
    try {
      const body = await readBody(request);
      let answer: [number, unknown, Record<string, string>?];
      if (path.startsWith('/_emulator/')) {
        checkControlRequest(request, method, body);
        const control = controls.find((c) => c.method === method && c.pattern.test(path));
        if (!control) throw new RequestError(404, 'NOT_FOUND', `No control ${method} ${path}.`);
        answer = await control.handle(control.pattern.exec(path)!.slice(1), body);
      } else answer = api(method, path, request);
      status = answer[0];
      if (answer[1] === undefined) {
        response.writeHead(status).end();
      } else sendJson(response, status, answer[1], answer[2]);
    } catch (error) {
      const refused =
        error instanceof RequestError
          ? error
          : error instanceof PixhookConfigError
            ? new RequestError(400, 'INVALID_REQUEST', error.message)
            : undefined;
      status = refused?.status ?? 500;
      sendJson(
        response,
        status,
        { error: refused?.apiCode ?? 'INTERNAL', message: refused?.message ?? 'The emulator failed.' },
        refused?.headers,
      );
    }
    log.push({ method, path, status });
  };
}
