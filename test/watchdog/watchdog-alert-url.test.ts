import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createWatchdog } from '../../src/console/index.js';
import { memoryJournal, PixhookConfigError } from '../../src/index.js';

// createWatchdog({ alertUrl }): each new alert is posted as JSON with a `text` field (Slack and Teams show it) to a
// real local HTTP server; a hook that fails is retried, and one that keeps failing is reported, never dropped.
const minute = 60_000;
const noon = Date.UTC(2026, 10, 27, 12, 0, 0);
const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A hook on 127.0.0.1 answering each post with the next status of `statuses` (the last one repeats). */
async function hook(statuses: number[]): Promise<{ url: string; posts: { path: string; type: string; body: unknown }[] }> {
  const posts: { path: string; type: string; body: unknown }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      posts.push({ path: req.url ?? '', type: req.headers['content-type'] ?? '', body: JSON.parse(text) });
      res.writeHead(statuses[Math.min(posts.length, statuses.length) - 1]!).end('ok');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/services/T000/B000/hook-secret-path`, posts };
}

function silentWatchdog(alertUrl: string, errors: string[] = []) {
  let at = noon;
  const watchdog = createWatchdog({
    journal: memoryJournal(),
    alertUrl,
    silentAfterMinutes: 30,
    now: () => at,
    logger: { info() {}, warn() {}, error: (_fields, message) => errors.push(message ?? '') },
  });
  return { watchdog, advance: (ms: number) => void (at += ms) };
}

describe('createWatchdog({ alertUrl })', () => {
  it('posts each new alert once as JSON with a text field', async () => {
    const { url, posts } = await hook([200]);
    const { watchdog, advance } = silentWatchdog(url);
    advance(31 * minute);
    await watchdog.check();
    await watchdog.check(); // still active: not posted again
    expect(posts).toHaveLength(1);
    expect(posts[0]!.type).toBe('application/json');
    expect(posts[0]!.body).toMatchObject({ kind: 'silent', text: expect.stringContaining('No genuine delivery for 31 minutes') });
    expect(watchdog.metrics()).toMatchObject({ alertsPosted: 1, alertPostFailures: 0 });
    watchdog.close();
  });

  it('retries a hook that answers 503, and reports one that keeps failing without its secret path', async () => {
    const flaky = await hook([503, 200]);
    const first = silentWatchdog(flaky.url);
    first.advance(31 * minute);
    await first.watchdog.check();
    expect(flaky.posts).toHaveLength(2);
    expect(first.watchdog.metrics()).toMatchObject({ alertsPosted: 1, alertPostFailures: 0 });
    first.watchdog.close();

    const down = await hook([500]);
    const errors: string[] = [];
    const second = silentWatchdog(down.url, errors);
    second.advance(31 * minute);
    await second.watchdog.check();
    expect(down.posts).toHaveLength(3);
    expect(second.watchdog.metrics()).toMatchObject({ alertsPosted: 0, alertPostFailures: 1 });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('HTTP 500');
    expect(errors[0]).not.toContain('hook-secret-path');
    second.watchdog.close();
  }, 20_000);

  it('does not retry a 4xx, and reports a refused connection through process warnings without a logger', async () => {
    const wrong = await hook([404]);
    const { watchdog, advance } = silentWatchdog(wrong.url);
    advance(31 * minute);
    await watchdog.check();
    expect(wrong.posts).toHaveLength(1);
    watchdog.close();

    const closed = await hook([200]);
    servers.pop()!.close();
    const warnings: string[] = [];
    const listen = (warning: Error) => warnings.push(warning.message);
    process.on('warning', listen);
    let at = noon;
    const quiet = createWatchdog({ journal: memoryJournal(), alertUrl: closed.url, now: () => at });
    at += 31 * minute;
    await quiet.check();
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', listen);
    expect(quiet.metrics().alertPostFailures).toBe(1);
    expect(warnings.some((w) => w.includes('posting the silent alert') && !w.includes('hook-secret-path'))).toBe(true);
    quiet.close();
  }, 20_000);

  it('refuses an alertUrl that is not an http(s) URL', () => {
    for (const bad of ['not a url', 'ftp://example.com/x', 42]) {
      expect(() => createWatchdog({ journal: memoryJournal(), alertUrl: bad as string })).toThrow(PixhookConfigError);
    }
    expect(() => createWatchdog({ journal: memoryJournal(), alertUrl: 'ftp://x' })).toThrow('alertUrl');
  });
});
