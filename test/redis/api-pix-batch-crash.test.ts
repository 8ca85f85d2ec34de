import { describe, expect, it } from 'vitest';
import { apiPixBody, apiPixPix, seededRandom } from '../../src/testing/index.js';
import { countBy, startFixture, useRedisWithFixtures, type FixtureProcess } from './fixture-process.js';

const redisServer = useRedisWithFixtures();
const secret = 'a-long-url-secret-for-tests-0123';

async function start(env: Record<string, string>): Promise<{ process: FixtureProcess; url: string }> {
  const proc = startFixture('api-pix-receiver.js', env);
  const line = await proc.waitFor((l) => typeof l['listening'] === 'number');
  return { process: proc, url: `http://127.0.0.1:${String(line['listening'])}/webhooks/bank/pix?secret=${secret}` };
}

const post = (url: string, body: string) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
    async (response) => ({ status: response.status, text: await response.text() }),
    () => ({ status: 0, text: '' }),
  );

describe('a 50-item API Pix batch, its instance killed in the middle (two instances on one Redis, inline mode)', () => {
  it('the PSP’s resend of the whole batch to the other instance runs only what was not done: every item handled once', async () => {
    const random = seededRandom(2950);
    const batch = Array.from({ length: 50 }, (_, i) => apiPixPix({ amountInCents: 100 + i, random }));
    const body = apiPixBody(batch);
    // A short claim: the killed instance's claim on item 25 lapses soon, as a crashed instance's does.
    const env = { REDIS_URL: redisServer().url, PREFIX: '{api-pix-crash}:', CLAIM_TTL_MS: '1000' };
    const a = await start({ ...env, HOLD_E2E: batch[25]!.endToEndId });
    const b = await start(env);

    // A dies while item 25's handler runs: items 0–24 are done, 25 is claimed, 26–49 never started.
    const first = post(a.url, body);
    await a.process.waitFor((line) => typeof line['holding'] === 'string');
    await a.process.stop('SIGKILL');
    expect((await first).status).toBe(0);
    expect([...countBy(a.process.lines, 'handled').keys()]).toEqual(batch.slice(0, 25).map((pix) => pix.endToEndId));

    // The PSP resends the whole call to B until it is answered 200: 503 while A's claim on item 25 lives.
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 40 && statuses.at(-1) !== 200; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 250));
      statuses.push((await post(b.url, body)).status);
    }
    expect(statuses.at(-1)).toBe(200);
    expect(statuses.slice(0, -1).every((status) => status === 503)).toBe(true);

    const handled = new Map<string, number>();
    for (const proc of [a.process, b.process])
      for (const [id, n] of countBy(proc.lines, 'handled')) handled.set(id, (handled.get(id) ?? 0) + n);
    expect([...handled.keys()].sort()).toEqual(batch.map((pix) => pix.endToEndId).sort());
    expect([...handled.values()].every((n) => n === 1)).toBe(true);
    // B ran exactly what A had not finished.
    expect([...countBy(b.process.lines, 'handled').keys()].sort()).toEqual(
      batch
        .slice(25)
        .map((pix) => pix.endToEndId)
        .sort(),
    );
    await b.process.stop();
  }, 60_000);
});
