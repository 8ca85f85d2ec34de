import { PixhookConfigError } from '../../src/index.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createReceiver } from '../../src/index.js';
import { deliver, sign, transactionPaid, type Sleep } from '../../src/testing/index.js';

const secret = 'whsec_sim';
const url = 'http://127.0.0.1:9/hook';

interface Call {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A fake fetch that answers with the given statuses in order (a string makes it throw). */
function scriptedFetch(script: (number | string)[]) {
  const calls: Call[] = [];
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({
      url: String(input),
      headers: init?.headers as Record<string, string>,
      body: new TextDecoder().decode(init?.body as Uint8Array),
    });
    const next = script[Math.min(calls.length - 1, script.length - 1)]!;
    if (typeof next === 'string') throw new TypeError(next);
    return new Response(next === 204 ? null : `{"n":${calls.length}}`, { status: next });
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

/** A fake clock: backoff sleeps advance it at once; timeout sleeps (with a signal) never fire. */
function fakeClock() {
  let time = Date.parse('2026-01-01T00:00:00Z');
  const waits: number[] = [];
  const sleep: Sleep = (ms, signal) => {
    if (signal) return new Promise(() => {});
    waits.push(ms);
    time += ms;
    return Promise.resolve();
  };
  return { sleep, now: () => time, waits };
}

describe('deliver (injected fetch and clock)', () => {
  it('stops on the first 2xx and reports one attempt', async () => {
    const { fetch, calls } = scriptedFetch([204]);
    const clock = fakeClock();
    const result = await deliver({ url, body: transactionPaid({ seed: 1 }), secret, fetch, ...clock });
    expect(result).toMatchObject({ delivered: true, finalStatus: 204 });
    expect(result.attempts).toHaveLength(1);
    expect(result.attempts[0]).toMatchObject({ attempt: 1, status: 204, at: '2026-01-01T00:00:00.000Z', responseBody: '' });
    expect(result.attempts[0]!.retryInMs).toBeUndefined();
    expect(clock.waits).toEqual([]);
    expect(calls).toHaveLength(1);
  });

  it('sends POST bytes with content-type and the right X-Signature on every attempt', async () => {
    const { fetch, calls } = scriptedFetch([500, 200]);
    const body = JSON.stringify(transactionPaid({ seed: 2 }), null, 2);
    const result = await deliver({ url, body, secret, fetch, ...fakeClock() });
    const expected = await sign(body, secret);
    expect(result.signature).toBe(expected);
    for (const call of calls) {
      expect(call.body).toBe(body);
      expect(call.headers['content-type']).toBe('application/json');
      expect(call.headers['x-signature']).toBe(expected);
    }
  });

  it('retries non-2xx up to 5 attempts in total with 1000/2000/4000/8000 ms between them', async () => {
    const { fetch, calls } = scriptedFetch([500]);
    const clock = fakeClock();
    const result = await deliver({ url, body: transactionPaid({ seed: 3 }), secret, fetch, ...clock });
    expect(result.delivered).toBe(false);
    expect(result.finalStatus).toBe(500);
    expect(calls).toHaveLength(5);
    expect(clock.waits).toEqual([1000, 2000, 4000, 8000]);
    expect(result.attempts.map((a) => a.retryInMs)).toEqual([1000, 2000, 4000, 8000, undefined]);
    expect(result.attempts.map((a) => a.at)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-01T00:00:01.000Z',
      '2026-01-01T00:00:03.000Z',
      '2026-01-01T00:00:07.000Z',
      '2026-01-01T00:00:15.000Z',
    ]);
  });

  it('counts 3xx and 4xx as failures and stops at the first 2xx', async () => {
    const { fetch, calls } = scriptedFetch([301, 401, 429, 200, 500]);
    const result = await deliver({ url, body: '{}', secret, fetch, ...fakeClock() });
    expect(result.delivered).toBe(true);
    expect(result.attempts.map((a) => a.status)).toEqual([301, 401, 429, 200]);
    expect(calls).toHaveLength(4);
  });

  it('honours retry: attempts and backoff', async () => {
    const { fetch } = scriptedFetch([503]);
    const clock = fakeClock();
    const result = await deliver({
      url,
      body: '{}',
      secret,
      fetch,
      retry: { attempts: 3, backoff: { delayMs: 250, factor: 3 } },
      ...clock,
    });
    expect(result.attempts).toHaveLength(3);
    expect(clock.waits).toEqual([250, 750]);
  });

  it('keeps each wait between half and all of the interval with jitter on', async () => {
    const { fetch } = scriptedFetch([500]);
    const clock = fakeClock();
    await deliver({ url, body: '{}', secret, fetch, jitter: true, random: () => 0, ...clock });
    expect(clock.waits).toEqual([500, 1000, 2000, 4000]);
  });

  it('counts a network error as a failed attempt and says why', async () => {
    const { fetch } = scriptedFetch(['fetch failed', 200]);
    const result = await deliver({ url, body: '{}', secret, fetch, ...fakeClock() });
    expect(result.delivered).toBe(true);
    expect(result.attempts[0]).toMatchObject({ attempt: 1, error: 'fetch failed' });
    expect(result.attempts[0]!.status).toBeUndefined();
  });

  it('stops after a failed attempt giveUp returns true for, with no wait after it', async () => {
    const { fetch, calls } = scriptedFetch(['fetch failed', 200]);
    const clock = fakeClock();
    const result = await deliver({ url, body: '{}', secret, fetch, ...clock, giveUp: (attempt) => attempt.error !== undefined });
    expect(result.delivered).toBe(false);
    expect(calls).toHaveLength(1);
    expect(result.attempts[0]!.retryInMs).toBeUndefined();
    expect(clock.waits).toEqual([]);
  });

  it('counts a timeout as a failure, aborts the request, and retries', async () => {
    const signals: AbortSignal[] = [];
    let call = 0;
    const fetch = ((_: unknown, init?: RequestInit) => {
      call++;
      signals.push(init!.signal!);
      if (call === 1) return new Promise(() => {}); // never answers
      return Promise.resolve(new Response('{"ok":true}', { status: 200 }));
    }) as typeof globalThis.fetch;
    // The first timeout sleep fires at once; the others never do.
    let timeouts = 0;
    const waits: number[] = [];
    const sleep: Sleep = (ms, signal) => {
      if (!signal) return (void waits.push(ms), Promise.resolve());
      timeouts++;
      return timeouts === 1 ? Promise.resolve() : new Promise(() => {});
    };
    const result = await deliver({ url, body: '{}', secret, fetch, sleep, timeoutMs: 10_000 });
    expect(result.delivered).toBe(true);
    expect(result.attempts[0]).toMatchObject({ attempt: 1, error: 'timeout: no answer within 10000 ms' });
    expect(result.attempts[1]).toMatchObject({ attempt: 2, status: 200 });
    expect(signals[0]!.aborted).toBe(true);
    expect(signals[1]!.aborted).toBe(false);
    expect(waits).toEqual([1000]);
  });

  it('all five attempts timing out is not delivered and has no final status', async () => {
    const fetch = (() => new Promise(() => {})) as typeof globalThis.fetch;
    const sleep: Sleep = () => Promise.resolve();
    const result = await deliver({ url, body: '{}', secret, fetch, sleep });
    expect(result.delivered).toBe(false);
    expect(result.finalStatus).toBeUndefined();
    expect(result.attempts.map((a) => a.error)).toEqual(Array(5).fill('timeout: no answer within 10000 ms'));
  });

  it('sends a forged signature, or none, when asked', async () => {
    const forged = scriptedFetch([401]);
    await deliver({ url, body: '{}', signature: 'sha256=bad', fetch: forged.fetch, retry: { attempts: 1 }, ...fakeClock() });
    expect(forged.calls[0]!.headers['x-signature']).toBe('sha256=bad');
    const unsigned = scriptedFetch([401]);
    const result = await deliver({ url, body: '{}', signature: null, fetch: unsigned.fetch, retry: { attempts: 1 }, ...fakeClock() });
    expect(unsigned.calls[0]!.headers['x-signature']).toBeUndefined();
    expect(result.signature).toBeUndefined();
  });

  it('reports attempts live through onAttempt', async () => {
    const { fetch } = scriptedFetch([500, 500, 200]);
    const seen: number[] = [];
    await deliver({ url, body: '{}', secret, fetch, onAttempt: (a) => seen.push(a.status!), ...fakeClock() });
    expect(seen).toEqual([500, 500, 200]);
  });

  it('rejects impossible options', async () => {
    await expect(deliver({ url, body: '{}' })).rejects.toThrow(/secret/);
    await expect(deliver({ url, body: '{}', secret, retry: { attempts: 0 } })).rejects.toThrow(PixhookConfigError);
    await expect(deliver({ url, body: '{}', secret, retry: { backoff: { delayMs: -1 } } })).rejects.toThrow(PixhookConfigError);
  });

  it('takes an explicit schedule of waits', async () => {
    const { fetch } = scriptedFetch([503]);
    const clock = fakeClock();
    await deliver({ url, body: '{}', secret, fetch, retry: { backoff: [5, 50, 500] }, ...clock });
    expect(clock.waits).toEqual([5, 50, 500]);
  });

  it.each([
    [{ attempts: 3 }, 'pixhook: `attempts` was renamed: use `retry: { attempts }`'],
    [{ backoffMs: 0 }, 'pixhook: `backoffMs` was renamed: use `retry: { backoff: { delayMs } }`'],
    [{ factor: 3 }, 'pixhook: `factor` was renamed: use `retry: { backoff: { factor } }`'],
  ])('refuses the old retry option %j, naming its replacement', async (old, message) => {
    const error = await deliver({ url, body: '{}', secret, ...(old as object) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PixhookConfigError);
    expect((error as Error).message).toBe(message);
  });
});

describe('deliver (real HTTP against a real receiver)', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function start(failFirst: number): Promise<{ url: string; runs: () => number }> {
    const receiver = createReceiver({ secret });
    let runs = 0;
    receiver.on('transaction_paid', () => {
      runs++;
      if (runs <= failFirst) throw new Error('database down');
    });
    server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const result = await receiver.receive({ method: req.method, headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(result.status, result.headers).end(result.body);
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, runs: () => runs };
  }

  it('retries 500 handler_failed until the handler succeeds, then stops', async () => {
    const target = await start(2);
    const result = await deliver({ url: target.url, body: transactionPaid({ seed: 8 }), secret, retry: { backoff: { delayMs: 0 } } });
    expect(result.delivered).toBe(true);
    expect(result.attempts.map((a) => a.status)).toEqual([500, 500, 200]);
    expect(result.attempts[0]!.responseBody).toContain('handler_failed');
    expect(target.runs()).toBe(3);
  });

  it('a wrong secret gets 401 five times and the handler never runs', async () => {
    const target = await start(0);
    const result = await deliver({
      url: target.url,
      body: transactionPaid({ seed: 9 }),
      secret: 'wrong',
      retry: { backoff: { delayMs: 0 } },
    });
    expect(result.delivered).toBe(false);
    expect(result.attempts.map((a) => a.status)).toEqual([401, 401, 401, 401, 401]);
    expect(target.runs()).toBe(0);
  });

  it('reports connection refused as an error per attempt', async () => {
    const target = await start(0);
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    const result = await deliver({ url: target.url, body: '{}', secret, retry: { attempts: 2, backoff: { delayMs: 0 } } });
    expect(result.delivered).toBe(false);
    expect(result.attempts.map((a) => a.error)).toEqual(['fetch failed: ECONNREFUSED', 'fetch failed: ECONNREFUSED']);
  });
});
