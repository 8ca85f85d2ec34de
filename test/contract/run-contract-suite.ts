import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PixEvent } from '../../src/events/event-types.js';
import { createReceiver } from '../../src/index.js';
import { contractCases, rotatedSecret, secret, type ContractCase, type Expectation } from './contract-cases.js';
import { sendHttp, type ContractResponse, type TargetFactory } from './contract-target.js';

const handlerSecretMessage = 'db password hunter2 exploded';

/**
 * The one contract every adapter must pass unchanged: input → status, reason, handled or not.
 * An adapter is done when this suite passes against it.
 */
export function runContractSuite(targetName: string, makeTarget: TargetFactory, cases: ContractCase[] = contractCases): void {
  describe(`contract: ${targetName}`, () => {
    for (const c of cases) {
      it(c.name, async () => {
        const handled: PixEvent[] = [];
        let calls = 0;
        let releaseGate!: () => void;
        const gate = new Promise<void>((resolve) => (releaseGate = resolve));
        const receiver = createReceiver({ secret, ...c.options }).onAny(async (event) => {
          calls++;
          if (c.handler === 'blocked') await gate;
          if (c.handler === 'always-fail' || (c.handler === 'fail-once' && calls === 1)) {
            throw new Error(handlerSecretMessage);
          }
          handled.push(event);
        });
        const target = await makeTarget(receiver);
        try {
          for (const step of c.steps) {
            if ('send' in step) expectAnswer(await target.send(step.send), step.expect);
            else if ('concurrently' in step) {
              const answers = await Promise.all(step.concurrently.map((r) => target.send(r)));
              const handledNow = answers.filter((a) => a.status === 200 && parse(a).reason === undefined);
              expect(handledNow).toHaveLength(step.expectAll.length);
              for (const a of answers) {
                if (handledNow.includes(a)) continue;
                const reason = parse(a).error ?? parse(a).reason;
                expect([`503 in_flight`, `200 duplicate`]).toContain(`${a.status} ${String(reason)}`);
              }
            } else if ('release' in step) releaseGate();
            else await receiver.drain();
          }
          releaseGate();
          await receiver.drain();
          expect(handled).toHaveLength(c.handled);
          c.check?.(handled);
        } finally {
          releaseGate();
          await target.close();
        }
      });
    }
  });
}

function parse(response: ContractResponse): Record<string, unknown> {
  return JSON.parse(response.body) as Record<string, unknown>;
}

function expectAnswer(response: ContractResponse, expected: Expectation): void {
  const label = `${response.status} ${response.body.slice(0, 300)}`;
  expect(response.status, label).toBe(expected.status);
  expect(response.headers['content-type'], label).toMatch(/^application\/json/);
  // Every answer of every adapter carries the core's headers (a wrapper of writeHead once scrambled them).
  expect(response.headers['cache-control'], label).toBe('no-store');
  if (expected.status === 405) expect(response.headers['allow'], label).toBe('POST');
  const body = parse(response);
  if (expected.status < 300) {
    expect(body['ok'], label).toBe(true);
    expect(body['reason'], label).toBe(expected.reason);
  } else {
    expect(body['error'], label).toBe(expected.reason);
    expect(typeof body['message'], label).toBe('string');
  }
  for (const leak of [secret, rotatedSecret, handlerSecretMessage]) expect(response.body).not.toContain(leak);
  for (const [name, value] of Object.entries(expected.headers ?? {})) {
    if (typeof value === 'string') expect(response.headers[name], label).toBe(value);
    else expect(response.headers[name], label).toMatch(value);
  }
}

/** A receiver living in another runtime (Bun, Deno, workerd), driven through its control routes. */
export interface RemoteApp {
  /** e.g. http://127.0.0.1:1234 */
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * The same contract cases against a fetch app served by another runtime: each case sets the remote
 * receiver up (options, handler behaviour) over HTTP, then sends, releases and drains as usual.
 */
export function runRemoteContractSuite(targetName: string, start: () => Promise<RemoteApp>, cases: ContractCase[] = contractCases): void {
  describe(`contract: ${targetName}`, () => {
    let app: RemoteApp | undefined;
    beforeAll(async () => {
      app = await start();
    }, 120_000);
    afterAll(async () => {
      await app?.close();
    });
    const control = async (path: string, body?: unknown) => {
      const res = await fetch(`${app!.baseUrl}/_control/${path}`, { method: 'POST', body: JSON.stringify(body ?? {}) });
      expect(res.status).toBe(200);
      return (await res.json()) as { handled: PixEvent[] };
    };
    for (const c of cases) {
      it(c.name, async () => {
        await control('setup', { options: { secret, ...c.options }, handler: c.handler ?? 'ok' });
        const target = urlTargetOf(`${app!.baseUrl}/webhooks/pix`);
        for (const step of c.steps) {
          if ('send' in step) expectAnswer(await target(step.send), step.expect);
          else if ('concurrently' in step) {
            const answers = await Promise.all(step.concurrently.map((r) => target(r)));
            const handledNow = answers.filter((a) => a.status === 200 && parse(a).reason === undefined);
            expect(handledNow).toHaveLength(step.expectAll.length);
          } else if ('release' in step) await control('release');
          else await control('drain');
        }
        const { handled } = await control('drain');
        expect(handled).toHaveLength(c.handled);
        c.check?.(handled);
      });
    }
  });
}

function urlTargetOf(url: string) {
  return (request: Parameters<typeof sendHttp>[1]) => sendHttp(url, request);
}
