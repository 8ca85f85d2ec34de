import { afterAll, describe, expect, it } from 'vitest';
import { memoryDedupeStore } from '../../src/index.js';
import { redisDedupeStore, redisPaymentBook } from '../../src/redis/index.js';
import {
  backgroundAppliesOnSuccess,
  backgroundFailsThenRetry,
  releaseFailsThenAgain,
  throwsOnceApiPix,
  throwsOnceInline,
  timeoutThenRetry,
  twoInstances,
  type Backend,
} from '../book/applied-on-success-scenarios.js';
import { redisTargetNames, useRedisTarget } from '../helpers/redis-targets.js';
import { headersOf, paidDelivery } from './deliveries.js';
import { startReceiver, stopAllFixtures, useRedisWithFixtures } from './fixture-process.js';

// Issue 36 §1 on the Redis book (single server and a 3-master Cluster): the book's apply is committed with the
// done mark and the lease's give-back in one script once the handlers succeeded, never before. Each scenario
// failed on the code before it (the book applied the event before its handlers ran: the retry got `duplicate`).
describe.each(redisTargetNames)('redis book (%s): a fact is applied exactly when its handlers succeed', (name) => {
  const target = useRedisTarget(name);
  let tag = 0;
  // The book and the store in one {hash tag}: the joined claim and the joined commit.
  const joined = (client = target().client): Backend => {
    const prefix = `{door-${++tag}}:`;
    return { book: redisPaymentBook({ client, prefix: prefix + 'book:' }), store: redisDedupeStore({ client, prefix }) };
  };

  it('a handler that throws once: 500, 200, 200 duplicate, and it succeeded once', () => throwsOnceInline(joined()));
  it('the same on the API Pix receiver', () => throwsOnceApiPix(joined()));
  it('background: applied only when the internal retry succeeds', () => backgroundAppliesOnSuccess(joined()));
  it('background: every run failed, nothing applied, the sender’s retry runs it', () => backgroundFailsThenRetry(joined()));
  it('a timed-out run: in_flight while it runs, then the retry runs the handler', () => timeoutThenRetry(joined()));
  it('a release that fails leaves it held; released again it runs once', () => releaseFailsThenAgain(joined()));
  it('two instances, each with its own client, sharing book and store', () => {
    const prefix = `{door-${++tag}}:`;
    return twoInstances(() => {
      const client = target().connect();
      return { book: redisPaymentBook({ client, prefix: prefix + 'book:' }), store: redisDedupeStore({ client, prefix }) };
    });
  });

  it('the commit is one script: book, done mark and lease in the slot, nothing left behind', async () => {
    const backend = joined();
    await throwsOnceInline(backend);
    const prefix = `{door-${tag}}:`;
    // The done mark is set, the order lease given back (only its counter remains), the claim never left claimed.
    const keys = (await target().keys(`${prefix}*`)).sort();
    expect(keys.filter((key) => key.includes('order:') && !key.endsWith(':n'))).toEqual([]);
    const marks = keys.filter((key) => key.startsWith(prefix + 'transaction_paid'));
    expect(marks).toHaveLength(1);
    expect(await target().client.get(marks[0]!)).toBe('d');
  });

  it('a store elsewhere (in memory): the book commits first, then the run marks done', () =>
    throwsOnceInline({ book: redisPaymentBook({ client: target().client, prefix: `{door-${++tag}}:book:` }), store: memoryDedupeStore() }));
});

describe('redis book: an instance SIGKILLed mid-handler', () => {
  const redisServer = useRedisWithFixtures();
  afterAll(() => stopAllFixtures());

  it('a fresh instance then runs the handler once (it answered duplicate before)', async () => {
    const env = { REDIS_URL: redisServer().url, MODE: 'inline', BOOK: '1', CLAIM_TTL_MS: '1000' };
    const a = await startReceiver({ ...env, HOLD_ID: 'tx_killed' });
    const delivery = paidDelivery('tx_killed', 2_590);
    const post = (url: string) =>
      fetch(url, { method: 'POST', headers: headersOf(delivery), body: delivery.body }).then(
        async (response) => ({ status: response.status, body: await response.text() }),
        () => ({ status: 0, body: '' }),
      );
    const first = post(a.url);
    await a.process.waitFor((line) => line['holding'] !== undefined);
    await a.process.stop('SIGKILL');
    expect((await first).status).toBe(0);
    const b = await startReceiver(env);
    // The claim of the dead instance lapses after CLAIM_TTL_MS; until then the retry is in_flight (503).
    let answer = await post(b.url);
    for (let tries = 0; answer.status === 503 && tries < 40; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await post(b.url);
    }
    expect(answer).toEqual({ status: 200, body: '{"ok":true}' });
    expect((await post(b.url)).body).toBe('{"ok":true,"reason":"duplicate"}');
    expect(b.process.lines.filter((line) => line['handled'] !== undefined)).toHaveLength(1);
    await b.process.stop();
  }, 30_000);
});
