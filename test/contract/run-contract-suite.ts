import { describe, expect, it } from 'vitest';
import type { PixEvent } from '../../src/events/event-types.js';
import { createReceiver } from '../../src/index.js';
import { contractCases, rotatedSecret, secret, type ContractCase, type Expectation } from './contract-cases.js';
import type { ContractResponse, TargetFactory } from './contract-target.js';

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
