// Section 1: the core's receive() against the physical limit and the peers' verify-and-parse, same bytes.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { Webhooks } from '@octokit/webhooks';
import { createReceiver, eventKey, normalizeEvent, verifySignature } from 'pixhook';
import { bodies, secret } from './lib/payloads.js';
import { interleave, pairedRatio, pairedSpread } from './lib/interleave.js';
import { median, quick, round } from './lib/stats.js';

const stripe = new Stripe('sk_test_x');
// Webhooks#verify is webhooks-methods' verify bound to the secret (string payload, `sha256=` header).
const octokit = new Webhooks({ secret });
// Standard Webhooks secrets are base64 key material; derive one from the same secret string.
const svixSecret = `whsec_${Buffer.from(secret).toString('base64')}`;
const svix = new Webhook(svixSecret);

function subjectsFor(body) {
  const { bytes, signature } = body;
  const t = Math.floor(Date.now() / 1000);
  const stripeHeader = `t=${t},v1=${createHmac('sha256', secret).update(`${t}.`).update(bytes).digest('hex')}`;
  const svixId = 'msg_2bench0000000000000000000';
  const svixHeaders = {
    'webhook-id': svixId,
    'webhook-timestamp': String(t),
    'webhook-signature': svix.sign(svixId, new Date(t * 1000), bytes),
  };
  const headers = { 'content-type': 'application/json', 'x-signature': signature };
  // Every delivery must reach the claim: same bytes, so the key gets a counter (the store stays at its max).
  let n = 0;
  const receiver = createReceiver({ secret, dedupeKey: (event) => `${eventKey(event)}#${n++}` }).onAny(() => {});
  const request = { method: 'POST', headers, body: bytes };
  const check = { status: 0 };

  return {
    limit: {
      fn() {
        const given = Buffer.from(signature.slice(7), 'hex');
        const expected = createHmac('sha256', secret).update(bytes).digest();
        if (!timingSafeEqual(expected, given)) throw new Error('limit: mismatch');
        return JSON.parse(bytes.toString('utf8'));
      },
    },
    pixhook: {
      async: true,
      async fn() {
        const result = await receiver.receive(request);
        check.status = result.status;
        if (result.status !== 200) throw new Error(`pixhook answered ${result.status} ${result.reason}`);
      },
    },
    stripe: {
      fn: () => stripe.webhooks.constructEvent(bytes, stripeHeader, secret, 3600),
    },
    octokit: {
      async: true,
      async fn() {
        const text = bytes.toString('utf8');
        if (!(await octokit.verify(text, signature))) throw new Error('octokit: mismatch');
        return JSON.parse(text);
      },
    },
    svix: {
      fn: () => svix.verify(bytes, svixHeaders),
    },
    // The two halves of the core alone, to show where its time goes.
    'pixhook verify': {
      async: true,
      fn: () => verifySignature({ body: bytes, signature, secret }),
    },
    'pixhook parse+normalize': {
      fn() {
        const r = normalizeEvent(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)));
        if (!r.ok) throw new Error(r.message);
      },
    },
  };
}

const options = quick ? { rounds: 3, sliceMs: 5, warmupMs: 50 } : { rounds: 40, sliceMs: 25, warmupMs: 500 };
const rounds = Number(process.env.BENCH_CORE_ROUNDS ?? options.rounds);

const versionOf = (name) => JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')).version;
const out = {
  versions: Object.fromEntries(
    ['stripe', '@octokit/webhooks', '@octokit/webhooks-methods', 'standardwebhooks', 'zod'].map((n) => [n, versionOf(n)]),
  ),
};
for (const [key, body] of Object.entries(bodies)) {
  const samples = await interleave(subjectsFor(body), { ...options, rounds });
  const ns = Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, round(median(s), 0)]));
  out[key] = {
    label: body.label,
    bytes: body.bytes.length,
    ns,
    vs: {
      limit: round(pairedRatio(samples, 'pixhook', 'limit'), 3),
      stripe: round(pairedRatio(samples, 'pixhook', 'stripe'), 3),
      octokit: round(pairedRatio(samples, 'pixhook', 'octokit'), 3),
      svix: round(pairedRatio(samples, 'pixhook', 'svix'), 3),
    },
    // The target's ratio with its min–max over the rounds.
    limit_spread: pairedSpread(samples, 'pixhook', 'limit'),
  };
}
console.log(JSON.stringify(out));
