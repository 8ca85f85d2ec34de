// Section 7's sender, run in durable.js's process (the servers run in others): `count` distinct signed
// deliveries (Variant B transaction_paid, a fresh transaction id each, so every one is claimed and
// queued) sent by `senders` concurrent keep-alive senders; the clock runs from the first send to the
// moment the server's worker has completed all of them. Resolves with {events, ms, eps}.
import { createHmac } from 'node:crypto';
import { Agent, get, request } from 'node:http';
import { buildPayload } from 'pixhook/testing';
import { secret } from './lib/payloads.js';

function send(agent, port, { bytes, signature }) {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': bytes.length, 'x-signature': signature };
    const req = request({ agent, host: '127.0.0.1', port, method: 'POST', path: '/webhooks/pix', headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () =>
        res.statusCode === 200 && !text.includes('duplicate') ? resolve() : reject(new Error(`answered ${res.statusCode} ${text}`)),
      );
    });
    req.on('error', reject);
    req.end(bytes);
  });
}

function controlGet(control, path) {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port: control, path }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`${path}: ${res.statusCode} ${text}`))));
    }).on('error', reject);
  });
}

export async function sendRound({ port, control, count, senders, tag }) {
  const deliveries = [];
  for (let i = 0; i < count; i++) {
    const bytes = Buffer.from(
      JSON.stringify(buildPayload('transaction_paid', { variant: 'b', seed: 7 + (i % 50), id: `txn_${tag}_${i}` })),
    );
    deliveries.push({ bytes, signature: `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}` });
  }
  const agent = new Agent({ keepAlive: true, maxSockets: senders });
  try {
    const before = (await controlGet(control, '/count')).completed;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: senders }, async () => {
        while (next < count) await send(agent, port, deliveries[next++]);
      }),
    );
    await controlGet(control, `/wait?count=${before + count}`);
    const ms = performance.now() - started;
    return { events: count, ms: Math.round(ms), eps: Math.round((count / ms) * 1000) };
  } finally {
    agent.destroy();
  }
}
