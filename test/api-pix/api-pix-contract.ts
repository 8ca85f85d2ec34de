// The adapter contract for the standard API Pix profile: the same input gives the same status, reason
// and handled count through the core and every adapter, in each acknowledgement mode they serve.
import { describe, expect, it } from 'vitest';
import { createApiPixReceiver, type ApiPixReceiverOptions } from '../../src/api-pix/index.js';
import type { PixEvent } from '../../src/index.js';
import { apiPixBody, apiPixPix, seededRandom } from '../../src/testing/index.js';
import type { ContractRequest, ContractResponse, TargetFactory } from '../contract/contract-target.js';
import { pixWebhook1, pixWebhook2, recWebhookNotification1, urlSecret } from './fixtures.js';

interface Expect {
  status: number;
  reason?: string;
}
interface Case {
  name: string;
  options?: Partial<ApiPixReceiverOptions>;
  failOnce?: boolean;
  steps: { send: ContractRequest; expect: Expect }[];
  handled: number;
}

const random = seededRandom(2029);
const one = apiPixPix({ random });
const three = [apiPixPix({ random }), apiPixPix({ random }), apiPixPix({ random })];
const query = `?secret=${urlSecret}`;

function post(body: string, path = `/pix${query}`): ContractRequest {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode(body), path };
}

const ok: Expect = { status: 200 };

export const apiPixCases: Case[] = [
  { name: 'one Pix in { pix: [...] } is handled', steps: [{ send: post(apiPixBody([one])), expect: ok }], handled: 1 },
  {
    name: 'the same call again answers duplicate',
    steps: [
      { send: post(apiPixBody([one])), expect: ok },
      { send: post(apiPixBody([one])), expect: { status: 200, reason: 'duplicate' } },
    ],
    handled: 1,
  },
  {
    name: 'a bare array on /pix/ is handled',
    steps: [{ send: post(apiPixBody([one], { shape: 'bare' }), `/pix/${query}`), expect: ok }],
    handled: 1,
  },
  { name: 'the bare mount path (no suffix) is served', steps: [{ send: post(apiPixBody([one]), query), expect: ok }], handled: 1 },
  { name: 'a three-item call runs three events', steps: [{ send: post(apiPixBody(three)), expect: ok }], handled: 3 },
  {
    name: "the spec's pixWebhook1: the Pix and its devolução",
    steps: [{ send: post(JSON.stringify(pixWebhook1)), expect: ok }],
    handled: 2,
  },
  {
    name: 'recWebhookNotification1 on /rec',
    steps: [{ send: post(JSON.stringify(recWebhookNotification1), `/rec${query}`), expect: ok }],
    handled: 1,
  },
  {
    name: 'no URL secret: 401 url_secret_mismatch, nothing read',
    steps: [{ send: post(apiPixBody([one]), '/pix'), expect: { status: 401, reason: 'url_secret_mismatch' } }],
    handled: 0,
  },
  {
    name: 'a wrong URL secret: 401 url_secret_mismatch',
    steps: [
      { send: post(apiPixBody([one]), `/pix?secret=${urlSecret.slice(1)}x`), expect: { status: 401, reason: 'url_secret_mismatch' } },
    ],
    handled: 0,
  },
  {
    name: 'GET: 405',
    steps: [{ send: { method: 'GET', headers: {}, path: `/pix${query}` }, expect: { status: 405, reason: 'method_not_allowed' } }],
    handled: 0,
  },
  { name: 'not JSON: 400 json_invalid', steps: [{ send: post('{"pix":['), expect: { status: 400, reason: 'json_invalid' } }], handled: 0 },
  {
    name: 'no API Pix shape: 400 payload_invalid',
    steps: [{ send: post('{"a":1}'), expect: { status: 400, reason: 'payload_invalid' } }],
    handled: 0,
  },
  {
    name: 'an unreadable item is kept; the others are handled and the call answered 200',
    steps: [{ send: post(JSON.stringify({ pix: [three[0], { ...pixWebhook2, valor: '1,00' }, three[1]] })), expect: ok }],
    handled: 2,
  },
  {
    name: 'a body over maxBodyBytes: 413',
    options: { maxBodyBytes: 64 },
    steps: [{ send: post(apiPixBody(three)), expect: { status: 413, reason: 'body_too_large' } }],
    handled: 0,
  },
  {
    name: 'a handler that fails once: 500, and the retry runs it',
    failOnce: true,
    steps: [
      { send: post(apiPixBody([one])), expect: { status: 500, reason: 'handler_failed' } },
      { send: post(apiPixBody([one])), expect: ok },
    ],
    handled: 1,
  },
  {
    name: 'background mode: accepted, then handled',
    options: { mode: 'background' },
    steps: [{ send: post(apiPixBody(three)), expect: ok }],
    handled: 3,
  },
];

export function runApiPixContract(targetName: string, makeTarget: TargetFactory): void {
  describe(`API Pix contract: ${targetName}`, () => {
    for (const c of apiPixCases) {
      it(c.name, async () => {
        const handled: PixEvent[] = [];
        let calls = 0;
        const receiver = createApiPixReceiver({ auth: { urlSecret: { secret: urlSecret } }, ...c.options } as ApiPixReceiverOptions).onAny(
          (event) => {
            calls++;
            if (c.failOnce === true && calls === 1) throw new Error('handler exploded');
            handled.push(event);
          },
        );
        const target = await makeTarget(receiver);
        try {
          for (const step of c.steps) expectAnswer(await target.send(step.send), step.expect);
          await receiver.drain();
          expect(handled).toHaveLength(c.handled);
        } finally {
          await target.close();
        }
      });
    }
  });
}

function expectAnswer(response: ContractResponse, expected: Expect): void {
  const label = `${response.status} ${response.body.slice(0, 300)}`;
  expect(response.status, label).toBe(expected.status);
  expect(response.headers['content-type'], label).toMatch(/^application\/json/);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  if (expected.status < 300) expect(body['reason'], label).toBe(expected.reason);
  else expect(body['error'], label).toBe(expected.reason);
  expect(response.body).not.toContain(urlSecret);
  expect(response.body).not.toContain('handler exploded');
}
