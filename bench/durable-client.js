// Section 7's sender, run in durable.js's process (the servers run in others): `count` distinct signed
// deliveries (Variant B transaction_paid, a fresh transaction id each, so every one is claimed and
// queued) sent by `senders` concurrent keep-alive senders; the clock runs from the first send to the
// moment the server's worker has completed all of them. Resolves with {events, ms, eps, cpuUs}: cpuUs is the
// server process's CPU time (user + system) per event over the round, and with `redisPid` the redis-server's.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
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

/** A process's CPU time so far in µs, from /proc (Linux); undefined elsewhere. */
function procCpuUs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return undefined;
  }
}

const cpuOf = (usage) => usage.user + usage.system;

export async function sendRound({ port, control, count, senders, tag, redisPid }) {
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
    const cpuBefore = cpuOf(await controlGet(control, '/cpu'));
    const redisBefore = redisPid === undefined ? undefined : procCpuUs(redisPid);
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: senders }, async () => {
        while (next < count) await send(agent, port, deliveries[next++]);
      }),
    );
    await controlGet(control, `/wait?count=${before + count}`);
    const ms = performance.now() - started;
    const cpuUs = (cpuOf(await controlGet(control, '/cpu')) - cpuBefore) / count;
    const redisAfter = redisPid === undefined ? undefined : procCpuUs(redisPid);
    return {
      events: count,
      ms: Math.round(ms),
      eps: Math.round((count / ms) * 1000),
      cpuUs: Math.round(cpuUs),
      ...(redisAfter !== undefined && redisBefore !== undefined && { redisCpuUs: Math.round((redisAfter - redisBefore) / count) }),
    };
  } finally {
    agent.destroy();
  }
}
