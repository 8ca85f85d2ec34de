// Runs the API Pix contract against one adapter in one auth mode: one server for all the cases, a fresh
// receiver (memory store, the case's options and auth) swapped in for each.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiPixReceiver, type ApiPixReceiverOptions } from '../../src/api-pix/index.js';
import type { PixEvent } from '../../src/index.js';
import type { ContractResponse } from '../contract/contract-target.js';
import type { RemoteApp } from '../contract/run-contract-suite.js';
import { authCases, defaultAuth, withCredentials } from './api-pix-auth-cases.js';
import type { ApiPixCase, Expectation } from './api-pix-case.js';
import { sharedCases } from './api-pix-contract.js';
import {
  certificates,
  type AdapterUnderTest,
  type ApiPixTarget,
  type AuthMode,
  type Certificates,
  type PixRequest,
} from './api-pix-targets.js';
import { sendCall } from './send-pix-call.js';
import { urlSecret } from './fixtures.js';

const handlerSecretMessage = 'db password hunter2 exploded';

/** Every case that applies to `mode`: the shared ones, then the mode's auth cases. */
export function casesFor(adapter: AdapterUnderTest, mode: AuthMode): ApiPixCase[] {
  return [...sharedCases, ...authCases[mode]].filter(
    (c) => (c.modes === undefined || c.modes.includes(mode)) && (c.needsPeerAddress !== true || adapter.knowsPeerAddress !== false),
  );
}

export function runApiPixContract(adapter: AdapterUnderTest, mode: AuthMode): void {
  describe(`API Pix contract: ${adapter.name}, auth ${mode}`, () => {
    let certs: Certificates;
    let target: ApiPixTarget | undefined;
    beforeAll(async () => {
      certs = await certificates();
      target = await adapter.start(mode, certs);
    });
    afterAll(async () => {
      await target?.close();
    });
    for (const c of casesFor(adapter, mode)) it(c.name, () => runCase(c, mode, certs, target!));
  });
}

export async function runCase(c: ApiPixCase, mode: AuthMode, certs: Certificates, target: ApiPixTarget): Promise<void> {
  const handled: PixEvent[] = [];
  const counts = { runs: 0, invalid: 0 };
  const seen = new Set<string>();
  let releaseGate!: () => void;
  const gate = new Promise<void>((resolve) => (releaseGate = resolve));
  const receiver = createApiPixReceiver(receiverOptions(c, mode, certs))
    .onAny(async (event) => {
      counts.runs++;
      if (c.handler === 'blocked') await gate;
      const handler = c.handler ?? 'ok';
      if (typeof handler === 'object' && event.name === 'pix_received' && event.pix.endToEndId === handler.failOnceFor) {
        if (!seen.has(handler.failOnceFor)) {
          seen.add(handler.failOnceFor);
          throw new Error(handlerSecretMessage);
        }
      }
      if (handler === 'always-fail' || (handler === 'fail-once' && counts.runs === 1)) throw new Error(handlerSecretMessage);
      handled.push(event);
    })
    .onInvalid(() => void counts.invalid++);
  await target.serve(receiver);
  try {
    await runSteps(c, mode, { send: (request) => target.send(request), release: releaseGate, drain: () => receiver.drain() });
    releaseGate();
    await receiver.drain();
    expectOutcome(c, { handled, ...counts });
  } finally {
    releaseGate();
    await receiver.close();
  }
}

function receiverOptions(c: ApiPixCase, mode: AuthMode, certs: Certificates): ApiPixReceiverOptions {
  return { auth: (c.auth ?? defaultAuth[mode])(certs), ...c.options } as ApiPixReceiverOptions;
}

interface CaseDriver {
  send(request: PixRequest): Promise<ContractResponse>;
  release(): void | Promise<void>;
  drain(): Promise<unknown>;
}

async function runSteps(c: ApiPixCase, mode: AuthMode, driver: CaseDriver): Promise<void> {
  for (const step of c.steps) {
    if ('send' in step) {
      const sending = driver.send(withCredentials(mode, step.send));
      if ('refused' in step.expect) await expect(sending).rejects.toThrow();
      else expectAnswer(await sending, step.expect);
    } else if ('concurrently' in step) {
      const answers = await Promise.all(step.concurrently.map((request) => driver.send(withCredentials(mode, request))));
      const handledNow = answers.filter((answer) => answer.status === 200 && parse(answer)['reason'] === undefined);
      expect(handledNow).toHaveLength(step.handledNow);
      for (const answer of answers) {
        if (handledNow.includes(answer)) continue;
        const body = parse(answer);
        expect(['503 in_flight', '200 duplicate']).toContain(`${String(answer.status)} ${String(body['error'] ?? body['reason'])}`);
      }
    } else if ('release' in step) await driver.release();
    else await driver.drain();
  }
}

interface Outcome {
  handled: PixEvent[];
  runs: number;
  invalid: number;
}

function expectOutcome(c: ApiPixCase, outcome: Outcome): void {
  expect(outcome.handled, 'events handled').toHaveLength(c.handled);
  if (c.runs !== undefined) expect(outcome.runs, 'handler runs').toBe(c.runs);
  expect(outcome.invalid, 'calls or items reported to onInvalid').toBe(c.invalid ?? 0);
  c.check?.(outcome.handled);
}

/**
 * The same cases against a fetch app served by another runtime (test/api-pix/runtime-fixtures): each case
 * sets the remote receiver up over HTTP (options, auth, handler behaviour), then sends, releases and drains.
 */
export function runRemoteApiPixContract(name: string, start: () => Promise<RemoteApp>, modes: readonly AuthMode[]): void {
  for (const mode of modes) {
    describe(`API Pix contract: ${name}, auth ${mode}`, () => {
      let app: RemoteApp | undefined;
      let certs: Certificates;
      beforeAll(async () => {
        certs = await certificates();
        app = await start();
      }, 120_000);
      afterAll(async () => {
        await app?.close();
      });
      const control = async (path: string, body?: unknown): Promise<Outcome> => {
        const res = await fetch(`${app!.baseUrl}/_control/${path}`, { method: 'POST', body: JSON.stringify(body ?? {}) });
        expect(res.status).toBe(200);
        return (await res.json()) as Outcome;
      };
      const remote: AdapterUnderTest = { name, modes, start: () => Promise.reject(new Error('remote')) };
      for (const c of casesFor(remote, mode)) {
        it(c.name, async () => {
          await control('setup', { options: receiverOptions(c, mode, certs), handler: c.handler ?? 'ok' });
          const base = `${app!.baseUrl}/webhooks/bank`;
          await runSteps(c, mode, {
            send: (request) => sendCall(base + (request.path ?? ''), request),
            release: async () => void (await control('release')),
            drain: () => control('drain'),
          });
          await control('release');
          expectOutcome(c, await control('drain'));
        });
      }
    });
  }
}

function parse(response: ContractResponse): Record<string, unknown> {
  return JSON.parse(response.body) as Record<string, unknown>;
}

function expectAnswer(response: ContractResponse, expected: Expectation): void {
  const label = `${String(response.status)} ${response.body.slice(0, 300)}`;
  expect(response.status, label).toBe(expected.status);
  expect(response.headers['content-type'], label).toMatch(/^application\/json/);
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
  // No secret, query, or handler message in any answer, in any mode.
  for (const leak of [urlSecret, handlerSecretMessage, 'secret=']) expect(response.body, label).not.toContain(leak);
  for (const [name, value] of Object.entries(expected.headers ?? {})) {
    if (typeof value === 'string') expect(response.headers[name], label).toBe(value);
    else expect(response.headers[name], label).toMatch(value);
  }
}
