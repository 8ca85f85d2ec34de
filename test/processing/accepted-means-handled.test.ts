import express from 'express';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { createNodeHandler } from '../../adapters/node/index.js';
import { describeError } from '../../src/shared/describe-error.js';
import { createReceiver, memoryDedupeStore, type HandlerFailure, type Logger, type QueuedEvent } from '../../src/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// One test per hole of issue 11; each failed on the code before it.
const secret = 'whsec_accepted_means_handled';

function paid(id: string, amount = 1000) {
  return { event: 'transaction_paid', timestamp: '2026-11-23T10:00:00Z', data: { id, status: 'paid', amountInCents: amount } };
}

function delivery(payload: unknown) {
  const body = bytesOf(payload);
  return { method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body };
}

const throwingLogger: Logger = {
  info() {
    throw new Error('log stream closed (info)');
  },
  warn() {
    throw new Error('log stream closed (warn)');
  },
  error() {
    throw new Error('log stream closed (error)');
  },
};

/** Fails the test if anything reaches the process's unhandled-rejection or uncaught-exception hooks. */
function watchCrashes() {
  const crashes: unknown[] = [];
  const onCrash = (error: unknown) => void crashes.push(error);
  process.on('unhandledRejection', onCrash);
  process.on('uncaughtException', onCrash);
  return {
    crashes,
    stop() {
      process.off('unhandledRejection', onCrash);
      process.off('uncaughtException', onCrash);
    },
  };
}

let watcher: ReturnType<typeof watchCrashes> | undefined;
afterEach(() => watcher?.stop());

describe('a logger that throws never breaks a delivery', () => {
  it('Express answers a handled event 200 JSON, not a 500 HTML stack trace with the log fields', async () => {
    const receiver = createReceiver({ secret, logger: throwingLogger }).on('transaction_paid', () => {});
    const app = express();
    app.post('/pix', createExpressMiddleware(receiver));
    const d = delivery(paid('tx_log_1'));
    const res = await request(app)
      .post('/pix')
      .set('content-type', 'application/json')
      .set('x-signature', d.headers['x-signature'])
      .send(new TextDecoder().decode(d.body));
    expect(res.status).toBe(200);
    expect(res.text).toBe('{"ok":true}');
  });

  it('the node adapter answers instead of destroying the socket', async () => {
    const receiver = createReceiver({ secret, logger: throwingLogger }).on('transaction_paid', () => {});
    const server = createServer(createNodeHandler(receiver));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const d = delivery(paid('tx_log_2'));
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
        method: 'POST',
        headers: d.headers,
        body: d.body,
      });
      expect(res.status).toBe(200);
    } finally {
      server.close();
    }
  });

  it('logger.error throwing while an inline handler fails: answered 500 handler_failed, onError told, no unhandled rejection', async () => {
    watcher = watchCrashes();
    const failures: HandlerFailure[] = [];
    const receiver = createReceiver({ secret, logger: throwingLogger })
      .on('transaction_paid', () => {
        throw new Error('ledger down');
      })
      .onError((f) => void failures.push(f));
    const result = await receiver.receive(delivery(paid('tx_log_3')));
    expect(result).toMatchObject({ status: 500, reason: 'handler_failed' });
    await new Promise((r) => setTimeout(r, 20));
    expect(failures).toHaveLength(1);
    expect(watcher.crashes).toEqual([]);
  });

  it('logger.warn throwing during a background retry: retries go on and the event is handled', async () => {
    watcher = watchCrashes();
    let runs = 0;
    const receiver = createReceiver({
      secret,
      mode: 'background',
      logger: throwingLogger,
      retry: { attempts: 3, backoff: { delayMs: 1 } },
    }).on('transaction_paid', () => {
      if (++runs < 3) throw new Error('flaky');
    });
    expect((await receiver.receive(delivery(paid('tx_log_4')))).status).toBe(200);
    expect(await receiver.drain()).toBe(true);
    expect(runs).toBe(3);
    expect(receiver.metrics()).toMatchObject({ handled: 1, failed: 2 });
    expect(watcher.crashes).toEqual([]);
  });
});

describe('odd throwables never crash the process', () => {
  const oddities: [string, () => unknown][] = [
    ['Object.create(null)', () => Object.create(null)],
    [
      'an Error whose message getter throws',
      () => {
        const error = new Error('x');
        Object.defineProperty(error, 'message', {
          get: () => {
            throw new Error('getter');
          },
        });
        return error;
      },
    ],
    [
      'a Proxy that throws on every trap',
      () =>
        new Proxy(
          {},
          {
            get: () => {
              throw new Error('trap');
            },
            getPrototypeOf: () => {
              throw new Error('trap');
            },
          },
        ),
    ],
    ['undefined', () => undefined],
    ['a symbol', () => Symbol('odd')],
  ];

  it.each(oddities)('a handler throwing %s: 500 handler_failed, onError called, claim released', async (_what, make) => {
    watcher = watchCrashes();
    const failures: HandlerFailure[] = [];
    let throwing = true;
    const receiver = createReceiver({ secret })
      .on('transaction_paid', () => {
        if (throwing) throw make();
      })
      .onError((f) => void failures.push(f));
    const d = delivery(paid('tx_odd'));
    expect(await receiver.receive(d)).toMatchObject({ status: 500, reason: 'handler_failed' });
    expect(failures).toHaveLength(1);
    throwing = false;
    expect((await receiver.receive(d)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 20));
    expect(watcher.crashes).toEqual([]);
  });

  it('describeError never throws, whatever it is given', () => {
    for (const [, make] of oddities) expect(typeof describeError(make())).toBe('string');
  });
});

describe('handlers that never settle', () => {
  it('background, concurrency 10: 10 hung handlers, then 45 paid events — all 45 run, drain resolves', async () => {
    const ran: string[] = [];
    const failures: HandlerFailure[] = [];
    const receiver = createReceiver({
      secret,
      mode: 'background',
      handlerTimeoutMs: 100,
      background: { concurrency: 10 },
      retry: { attempts: 1 },
    })
      .on('transaction_paid', (event) => {
        if (event.transaction.id.startsWith('tx_hang')) return new Promise(() => {});
        ran.push(event.transaction.id);
      })
      .onError((f) => void failures.push(f));
    for (let i = 0; i < 10; i++) expect((await receiver.receive(delivery(paid(`tx_hang_${i}`)))).status).toBe(200);
    for (let i = 0; i < 45; i++) expect((await receiver.receive(delivery(paid(`tx_after_${i}`)))).status).toBe(200);
    expect(await receiver.drain({ timeoutMs: 5_000 })).toBe(true);
    expect(ran).toHaveLength(45);
    expect(failures).toHaveLength(10);
    expect(receiver.metrics()).toMatchObject({ handled: 45, timedOut: 10 });
  });

  it('inline: a hung handler answers 503 at the deadline, then fails at handlerTimeoutMs — onError hears, the claim is released', async () => {
    const failures: HandlerFailure[] = [];
    let hang = true;
    const receiver = createReceiver({ secret, deadlineMs: 30, handlerTimeoutMs: 120 })
      .on('transaction_paid', (_e, context) => {
        if (hang) return new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve()));
      })
      .onError((f) => void failures.push(f));
    const d = delivery(paid('tx_inline_hang'));
    expect(await receiver.receive(d)).toMatchObject({ status: 503, reason: 'handler_timeout' });
    expect((await receiver.receive(d)).reason).toBe('in_flight');
    expect(await receiver.drain({ timeoutMs: 2_000 })).toBe(true);
    expect(failures).toHaveLength(1);
    expect(describeError(failures[0]!.error)).toMatch(/handlerTimeoutMs/);
    hang = false;
    expect((await receiver.receive(d)).status).toBe(200);
  });
});

describe('claims are owned and kept alive from the moment they are taken', () => {
  it('an event queued past its claim TTL and then redelivered is not run twice', async () => {
    // Fake clocks: the claim's renewals happen because time is advanced, not because a busy machine kept up.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });
    onTestFinished(() => void vi.useRealTimers());
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runs: string[] = [];
    const receiver = createReceiver({ secret, mode: 'background', claimTtlMs: 60, background: { concurrency: 1 } }).on(
      'transaction_paid',
      async (event) => {
        runs.push(event.transaction.id);
        if (event.transaction.id === 'tx_blocker') await gate;
      },
    );
    await receiver.receive(delivery(paid('tx_blocker')));
    const waiting = delivery(paid('tx_waiting'));
    expect((await receiver.receive(waiting)).status).toBe(200);
    // Four claim TTLs later, the waiting event's claim is still renewed: its redelivery is in flight.
    await vi.advanceTimersByTimeAsync(240);
    expect((await receiver.receive(waiting)).reason).toBe('in_flight');
    release();
    expect(await receiver.drain()).toBe(true);
    expect((await receiver.receive(waiting)).reason).toBe('duplicate');
    expect(runs.filter((id) => id === 'tx_waiting')).toHaveLength(1);
  });

  it('a store that cannot renew turns the run into a failure before the claim lapses, never a second run', async () => {
    const base = memoryDedupeStore();
    let renewals = true;
    // A local store that renews (no `pin`, which the memory store has: its claims never need a renewal).
    const store = {
      claim: base.claim,
      complete: base.complete,
      release: base.release,
      local: true,
      extend: (k: string, o: string, t: number) => (renewals ? base.extend(k, o, t) : false),
    };
    const failures: HandlerFailure[] = [];
    const receiver = createReceiver({ secret, store, claimTtlMs: 80, deadlineMs: 2_000 })
      .on('transaction_paid', (_e, context) => new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve())))
      .onError((f) => void failures.push(f));
    renewals = false;
    const result = await receiver.receive(delivery(paid('tx_unrenewable')));
    expect(result).toMatchObject({ status: 500, reason: 'handler_failed' });
    expect(failures).toHaveLength(1);
    expect((failures[0]!.error as { code?: string }).code).toBe('claim_lost');
    expect(receiver.metrics().claimsLost).toBe(1);
  });
});

describe('durable mode queues what any mode accepts', () => {
  it('a paid event with an extra field nested 10 000 deep is queued (the verified bytes, not a re-serialization)', async () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    const text = `{"event":"transaction_paid","data":{"id":"tx_deep","status":"paid","amountInCents":100,"extra":${JSON.stringify({ x: 1 }).slice(0, 0)}${'{"d":'.repeat(10_000)}"bottom"${'}'.repeat(10_000)}}}`;
    const body = new TextEncoder().encode(text);
    const jobs: QueuedEvent[] = [];
    const receiver = createReceiver({
      secret,
      mode: 'durable',
      queue: { enqueue: async (job) => void jobs.push(JSON.parse(JSON.stringify(job)) as QueuedEvent) },
    });
    const result = await receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body });
    expect(result.status).toBe(200);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.body).toBe(text);
    expect(deep).toBeDefined();
  });
});
