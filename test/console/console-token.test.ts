import { describe, expect, it } from 'vitest';
import { createConsole } from '../../src/console/index.js';
import { memoryJournal } from '../../src/index.js';

const token = 'a-console-token-of-32-characters';

describe('a console with a token', () => {
  const app = createConsole({ journal: memoryJournal(), token, basePath: '/ops' });

  it('refuses a request without the token, from anywhere', async () => {
    const response = await app.fetch(new Request('http://10.0.0.5/ops/api/deliveries'), { remoteAddress: '10.0.0.9' });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: 'token_required' });
    expect(
      (await app.fetch(new Request('http://10.0.0.5/ops/deliveries', { headers: { authorization: 'Bearer wrong-token-wrong-token' } })))
        .status,
    ).toBe(401);
  });

  it('opens with Authorization: Bearer, or once with ?token= (an HttpOnly SameSite=Strict cookie, the token dropped from the URL)', async () => {
    expect(
      (await app.fetch(new Request('http://10.0.0.5/ops/api/deliveries', { headers: { authorization: `Bearer ${token}` } }))).status,
    ).toBe(200);
    const login = await app.fetch(new Request(`http://10.0.0.5/ops/deliveries?token=${token}&event=x`));
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/ops/deliveries?event=x');
    const cookie = login.headers.get('set-cookie')!;
    expect(cookie).toMatch(/HttpOnly; SameSite=Strict; Path=\/ops$/);
    expect(cookie).not.toContain(token);
    const page = await app.fetch(new Request('http://10.0.0.5/ops/deliveries', { headers: { cookie: cookie.split(';')[0]! } }));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
  });

  it('refuses a short token and a bad basePath when created', () => {
    expect(() => createConsole({ journal: memoryJournal(), token: 'short' })).toThrow(/`token` must be a string of at least 16 characters/);
    expect(() => createConsole({ journal: memoryJournal(), basePath: 'ops/' })).toThrow(/`basePath` must be a path like "\/console"/);
    expect(() => createConsole({} as never)).toThrow(/`journal` must be an object with add\(\)/);
  });
});
