// A PSP delivery against a gateway delivery of the same size, all through the node adapter, in the same run
// (issue 38's goals): an Asaas, PagBank or Woovi delivery costs at most 1.1× the gateway's (cost = gateway
// req/s ÷ the PSP's req/s per round, as bench/api-pix.js measures); a Mercado Pago delivery's server CPU is
// at most 1.2× the gateway's (CPU of the server process from /proc/<pid>/stat per completed request, so the
// emulator answering its `GET /v1/payments/{id}` — its own process — is excluded and reported apart, and the
// receiver's fetch client is included). Alternating rounds (the order rotated every round); each ratio is the
// median of per-round ratios with its min–max. `node bench/psp.js [--quick]`; needs `npm run build`.
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { buildPayload, pspSamples, signMercadoPago, signPagBank, signWoovi } from 'pixhook/testing';
import { startServer } from './lib/child.js';
import { secret } from './lib/payloads.js';
import { median, quick, round, spread } from './lib/stats.js';
import { load } from './load.js';

const plan = quick
  ? { rounds: 1, durationSec: 0.5, warmupSec: 0.2, rewarmSec: 0, connections: 10 }
  : { rounds: 7, durationSec: 1.5, warmupSec: 0.5, rewarmSec: 0.1, connections: 10 };
const size = 1024;
const goals = { asaas: 1.1, pagbank: 1.1, woovi: 1.1, mercadoPago: 1.2 };

/** JSON text of `value` grown to exactly `size` bytes by a free-text field `pad(value, text)` sets. */
function sized(value, pad) {
  pad(value, '');
  const bare = Buffer.byteLength(JSON.stringify(value));
  if (bare > size) throw new Error(`a ${bare}-byte body does not fit in ${size}`);
  pad(value, 'x'.repeat(size - bare));
  return JSON.stringify(value);
}
const clone = (value) => JSON.parse(JSON.stringify(value));

const credentials = { secret: 'mp-bench-secret-0123456789', accessToken: 'APP_USR-bench-0123456789' };
const emulator = await startServer('psp-emulator.js', [JSON.stringify(credentials)]);
// Whatever happens below, the children do not outlive the bench.
const children = [emulator.child];
process.on('exit', () => children.forEach((child) => child.exitCode === null && child.kill()));
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const config = {
  asaasToken: 'asaas-bench-token-0123456789abcdef',
  pagbankToken: 'pagbank-bench-token-0123456789',
  wooviPublicKey: publicKey.export({ type: 'spki', format: 'pem' }),
  mercadoPago: { ...credentials, apiBaseUrl: emulator.info.url },
};

// The bodies, each exactly `size` bytes: the gateway's Variant B `transaction_paid` padded in `transaction`
// (the reader ignores unknown fields), each PSP's documented sample padded in one of its free-text fields.
const gatewayText = sized(buildPayload('transaction_paid', { variant: 'b', seed: 7 }), (b, t) => (b.transaction.description = t));
const asaasText = sized(clone(pspSamples.asaas.paymentReceived), (b, t) => (b.payment.description = t));
const pagbankText = sized(clone(pspSamples.pagbank.orderPaid), (b, t) => (b.items[0].name = t));
const wooviText = sized(clone(pspSamples.woovi.chargeCompleted), (b, t) => (b.charge.comment = t));
const paymentId = emulator.info.paymentId;
const mercadoPagoText = sized({ ...clone(pspSamples.mercadoPago.notification), data: { id: paymentId } }, (b, t) => (b.description = t));
const mp = await signMercadoPago({ secret: credentials.secret, dataId: paymentId, requestId: 'bench-request-0001' });

const server = await startServer('psp-server.js', [JSON.stringify(config)]).catch(async (error) => {
  await emulator.stop();
  throw error;
});
children.push(server.child);
const port = server.info;

const json = { 'content-type': 'application/json' };
const subjects = {
  gateway: {
    url: `/webhooks/pix`,
    body: gatewayText,
    headers: { ...json, 'x-signature': `sha256=${createHmac('sha256', secret).update(gatewayText).digest('hex')}` },
  },
  asaas: { url: '/webhooks/asaas', body: asaasText, headers: { ...json, 'asaas-access-token': config.asaasToken } },
  pagbank: {
    url: '/webhooks/pagbank',
    body: pagbankText,
    headers: { ...json, 'x-authenticity-token': await signPagBank({ token: config.pagbankToken, body: pagbankText }) },
  },
  woovi: {
    url: '/webhooks/woovi',
    body: wooviText,
    headers: {
      ...json,
      'x-webhook-signature': signWoovi({ privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }), body: wooviText }),
    },
  },
  mercadoPago: { url: `/webhooks/mercado-pago${mp.query}`, body: mercadoPagoText, headers: { ...json, ...mp.headers } },
};

/** utime + stime of a process, in ms (clock ticks of 10 ms: USER_HZ is 100 on Linux). */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const names = Object.keys(subjects);
const runs = Object.fromEntries([...names, 'gatewayPaced'].map((name) => [name, []]));

/** One run of `name` (its warm-up first in round 0), with the server's and the emulator's CPU over it. */
async function measure(name, round, overallRate) {
  const subject = subjects[name];
  const url = `http://127.0.0.1:${port[name]}${subject.url}`;
  const base = { url, connections: plan.connections, body: subject.body, headers: subject.headers, overallRate };
  const warmupSec = round === 0 ? plan.warmupSec : plan.rewarmSec;
  if (warmupSec > 0) await load({ ...base, durationSec: warmupSec, warmupSec: 0 });
  const before = { server: cpuMs(port.pid), emulator: cpuMs(emulator.info.pid) };
  const result = await load({ ...base, durationSec: plan.durationSec, warmupSec: 0 });
  const after = { server: cpuMs(port.pid), emulator: cpuMs(emulator.info.pid) };
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${name}: ${JSON.stringify(result)}`);
  return {
    rps: result.rps,
    // At least one clock tick: a quick run's moment can fall inside one.
    cpuUs: (Math.max(10, after.server - before.server) * 1000) / result.requests,
    emulatorCpuUs: ((after.emulator - before.emulator) * 1000) / result.requests,
  };
}

try {
  for (let r = 0; r < plan.rounds; r++) {
    for (const name of names.map((_, i) => names[(i + r) % names.length])) {
      runs[name].push(await measure(name, r));
      // Mercado Pago waits on its GET, so it answers fewer deliveries a second than the gateway, and a server
      // under less load spends more CPU per request (fewer requests per wake-up): the gateway again, paced at
      // Mercado Pago's rate, is the like-for-like CPU baseline.
      if (name === 'mercadoPago') runs.gatewayPaced.push(await measure('gateway', r, Math.max(1, Math.round(runs.mercadoPago[r].rps))));
    }
  }
} finally {
  await server.stop();
  await emulator.stop();
}

const gateway = runs.gateway;
const psps = {};
for (const name of names.filter((n) => n !== 'gateway')) {
  const own = runs[name];
  const cost = spread(gateway.map((g, i) => g.rps / own[i].rps));
  const cpu = spread(own.map((x, i) => x.cpuUs / gateway[i].cpuUs));
  const paced = name === 'mercadoPago' ? spread(own.map((x, i) => x.cpuUs / runs.gatewayPaced[i].cpuUs)) : undefined;
  const ratio = paced ?? cost;
  psps[name] = {
    ratio,
    measure: paced !== undefined ? 'server CPU per delivery, gateway paced at its rate' : 'cost (gateway req/s ÷ PSP req/s)',
    goal: goals[name],
    withinBudget: ratio.median <= goals[name],
    rps: round(median(own.map((x) => x.rps)), 0),
    cpuUs: round(median(own.map((x) => x.cpuUs)), 1),
    costRatio: cost,
    cpuRatio: cpu,
    ...(paced !== undefined && {
      cpuRatioPaced: paced,
      gatewayPacedCpuUs: round(median(runs.gatewayPaced.map((x) => x.cpuUs)), 1),
      emulatorCpuUs: round(median(own.map((x) => x.emulatorCpuUs)), 1),
    }),
  };
}
console.log(
  JSON.stringify({
    plan,
    bytes: size,
    gateway: { rps: round(median(gateway.map((x) => x.rps)), 0), cpuUs: round(median(gateway.map((x) => x.cpuUs)), 1) },
    ...psps,
    withinBudget: Object.values(psps).every((p) => p.withinBudget),
  }),
);
