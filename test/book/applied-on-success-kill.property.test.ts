// Issue 36 "Done when" (§1), the SIGKILL fault: the applied-on-success property (the model and the invariant of
// applied-on-success-model.ts) where instance 0 is a child process (node, the built package, reached over HTTP:
// fixtures/kill-receiver.js). It gets the charge's payment first; its handler prints that it started and never returns;
// the parent then SIGKILLs it. The sender's retry, refused a connection, goes to another instance (in this process,
// same book and store backend). The killed run never completed, so it does not count: every genuine fact still ends
// with exactly one successful handler run, never two, and the wrong payment is held and never runs. On Redis, a single
// server and a Cluster (the dead instance's claim and order lease lapse after its claimTtlMs), and on Postgres, with
// the inbox (its session locks and transaction die with the connection) and without (the book alone keeps the second
// run from counting twice).
// Each run spawns a process (about half a second): a few runs each.
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { redisDedupeStore, redisPaymentBook } from '../../src/redis/index.js';
import { redisTargetNames, useRedisTarget } from '../helpers/redis-targets.js';
import { startFixture, stopAllFixtures } from '../redis/fixture-process.js';
import { deliverPlan, plans, type Plan, type Remote, type Setup } from './applied-on-success-model.js';
import { usePostgresSetups } from './applied-on-success-postgres.js';

const script = fileURLToPath(new URL('./fixtures/kill-receiver.js', import.meta.url));
const claimTtlMs = 500;

afterAll(() => stopAllFixtures());

/** `work`, or a rejection after `ms`: a child that never starts its handler fails the run instead of hanging it. */
async function within(ms: number, work: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms)));
  try {
    await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `plan` with instance 0 in a child process started with `env`; proves the kill landed mid-handler. */
async function killedMidHandler(plan: Plan, setup: Setup, env: Record<string, string>, seed: number): Promise<void> {
  const child = startFixture(script, {
    ...env,
    PROFILE: plan.profile,
    CLAIM_TTL_MS: String(claimTtlMs),
    ...(plan.expired && { DEDUPE_TTL_MS: '1' }),
  });
  const listening = await child.waitFor((line) => typeof line['listening'] === 'number');
  const url = `http://127.0.0.1:${String(listening['listening'])}`;
  const remote: Remote = {
    post: (path, body, headers) =>
      fetch(url + path, { method: 'POST', headers, body }).then(
        async (response) => {
          const text = await response.text();
          const reason = (JSON.parse(text) as { reason?: string }).reason;
          return { status: response.status, ...(reason !== undefined && { reason }) };
        },
        () => ({ status: 0 }),
      ),
    holding: () =>
      within(
        10_000,
        child.waitFor((line) => typeof line['holding'] === 'string'),
      ),
    kill: () => child.stop('SIGKILL'),
    ran: () => child.lines.flatMap((line) => (typeof line['ran'] === 'string' ? [line['ran']] : [])),
  };

  await deliverPlan(plan, setup, 3, 'inline', seed, remote);
  // The fault happened: the child's first handler run was the payment, and the child died of SIGKILL mid-handler.
  const holding = child.lines.find((line) => line['holding'] !== undefined)?.['holding'];
  expect(holding).toMatch(plan.profile === 'gateway' ? /^transaction_paid@1000$/ : /^pix:E/);
  expect(child.child.signalCode).toBe('SIGKILL');
  expect(remote.ran()).toEqual([]);
}

describe('issue 36: an instance SIGKILLed mid-handler — every genuine fact still runs once, never twice', () => {
  describe.each(redisTargetNames)('redis (%s)', (name) => {
    const target = useRedisTarget(name);
    let prefixes = 0;
    it('three instances, the first a child process killed while its handler runs', async () => {
      await fc.assert(
        fc.asyncProperty(plans(3, { maxFaults: 2, review: false }), (plan) => {
          const prefix = `{kill-${process.pid}-${++prefixes}}:`;
          const client = target().connect();
          const store = redisDedupeStore({ client, prefix, quarantine: false });
          const book = redisPaymentBook({ client, prefix: prefix + 'book:' });
          return killedMidHandler(plan, { book, store: () => store }, { BACKEND: 'redis', REDIS_URL: target().url, PREFIX: prefix }, 37);
        }),
        { numRuns: 3, seed: 37 },
      );
    }, 120_000);
  });

  describe('postgres', () => {
    const postgresSetup = usePostgresSetups('kill');

    it.each([false, true])(
      'with the inbox: %s — three instances, the first a child process killed while its handler runs',
      async (withInbox) => {
        await fc.assert(
          fc.asyncProperty(plans(3, { maxFaults: 2, review: false }), async (plan) => {
            const { setup, env } = await postgresSetup(withInbox);
            return killedMidHandler(plan, setup, env, 38 + Number(withInbox));
          }),
          { numRuns: 3, seed: 38 },
        );
      },
      120_000,
    );
  });
});
