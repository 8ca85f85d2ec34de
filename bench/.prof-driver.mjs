// temporary profiling driver (not committed)
import { spawn } from 'node:child_process';
import { generateKeyPairSync, createHmac } from 'node:crypto';
import { request, Agent } from 'node:http';
import { signPagBank, signWoovi } from 'pixhook/testing';
import { secret } from './lib/payloads.js';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const config = { asaasToken: 'a', pagbankToken: 'pagbank-bench-token', wooviPublicKey: publicKey.export({ type: 'spki', format: 'pem' }),
  mercadoPago: { secret: 's', accessToken: 'APP_USR-x', apiBaseUrl: 'http://127.0.0.1:9' } };
const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir=/tmp/pspprof', new URL('./psp-server.js', import.meta.url).pathname, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'inherit'] });
const ports = await new Promise((r) => child.stdout.once('data', (d) => r(JSON.parse(String(d)))));
const pad = 'x'.repeat(700);
const gw = JSON.stringify({ type: 'x', pad });
const pb = JSON.stringify({ id: 'ORDE_1', reference_id: 'r', customer: { tax_id: '12345678909' }, items: [{ name: pad }], charges: [{ id: 'CHAR_1', status: 'PAID', amount: { value: 100, currency: 'BRL' } }] });
const wv = JSON.stringify({ event: 'OPENPIX:CHARGE_COMPLETED', charge: { correlationID: 'c1', value: 100, status: 'COMPLETED', comment: pad }, pix: { endToEndId: 'E18236120202611271000abcdefghijk', value: 100 } });
const subjects = {
  gateway: ['/webhooks/pix', gw, { 'x-signature': `sha256=${createHmac('sha256', secret).update(gw).digest('hex')}` }],
  pagbank: ['/webhooks/pagbank', pb, { 'x-authenticity-token': await signPagBank({ token: config.pagbankToken, body: pb }) }],
  woovi: ['/webhooks/woovi', wv, { 'x-webhook-signature': signWoovi({ privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }), body: wv }) }],
};
const agent = new Agent({ keepAlive: true, maxSockets: 10 });
const status = {};
for (const [name, [path, body, headers]] of Object.entries(subjects)) {
  let left = Number(process.env.N ?? 4000);
  await Promise.all(Array.from({ length: 10 }, async () => {
    while (left-- > 0) await new Promise((res, rej) => {
      const req = request({ host: '127.0.0.1', port: ports[name], path, method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } }, (r) => { status[`${name}:${r.statusCode}`] = (status[`${name}:${r.statusCode}`] ?? 0) + 1; r.resume(); r.on('end', res); });
      req.on('error', rej); req.end(body);
    });
  }));
}
console.log(status);
child.kill('SIGTERM');
await new Promise((r) => child.on('exit', r));
