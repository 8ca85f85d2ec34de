import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleApp } from './console-fixture.js';

// Issue 31: behind a reverse proxy on the same host, a remote client read the token-less console and
// released a held payment; a Host like `x@127.0.0.1` threw in the request bridge and Express showed the stack.
let app: Awaited<ReturnType<typeof startConsoleApp>>;
beforeAll(async () => {
  app = await startConsoleApp();
});
afterAll(() => app?.close());

/** A raw request, so any Host and header can be sent (fetch will not). */
function raw(path: string, headers: Record<string, string>, method = 'GET'): Promise<{ status: number; body: string }> {
  const url = new URL(`${app.base}${path}`);
  return new Promise((resolve, reject) => {
    request({ host: url.hostname, port: url.port, path: url.pathname, method, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('the token-less console and proxies', () => {
  it.each([
    ['forwarded', 'for=198.51.100.7'],
    ['x-forwarded-for', '198.51.100.7'],
    ['x-forwarded-host', '127.0.0.1'],
    ['x-forwarded-proto', 'https'],
    ['via', '1.1 nginx'],
  ])('refuses a request carrying %s, on pages and the API', async (name, value) => {
    const host = new URL(app.base).host;
    for (const path of ['/deliveries', '/api/deliveries', '/live']) {
      const answer = await raw(path, { host, [name]: value });
      expect(answer.status).toBe(403);
      expect(answer.body).toContain('proxy');
    }
    const [held] = await app.book.held();
    const post = await raw(`/actions/held/${encodeURIComponent(held?.heldId ?? 'h1')}/release`, { host, [name]: value }, 'POST');
    expect(post.status).toBe(403);
  });

  it('still answers a plain local request', async () => {
    expect((await raw('/api/deliveries', { host: new URL(app.base).host })).status).toBe(200);
  });

  it.each(['x@127.0.0.1', 'a:b@127.0.0.1', '127.0.0.1/evil', ' ', 'exa mple', '[::1'])(
    'parses the Host %j without throwing: a 403 page, never a stack or a 500',
    async (host) => {
      const answer = await raw('/deliveries', { host });
      expect(answer.status).toBe(403);
      expect(answer.body).not.toMatch(/at \w+ \(|node_modules|TypeError/);
    },
  );
});
