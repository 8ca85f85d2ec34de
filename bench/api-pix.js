// A one-item standard API Pix call against a gateway-family call of the same size, both through the node
// adapter (issue 29: the API Pix call must cost at most 1.1× the gateway's). Requests/s, alternating the
// two routes every round; the ratio is the median of per-round ratios gateway rps ÷ API Pix rps, with its
// min–max. `node bench/api-pix.js [--quick]`; needs `npm run build`.
import { startServer } from './lib/child.js';
import { bodies } from './lib/payloads.js';
import { median, quick, round, spread } from './lib/stats.js';
import { load } from './load.js';

const urlSecret = 'bench-url-secret-0123456789abcdef';
const plan = quick
  ? { rounds: 1, durationSec: 0.5, warmupSec: 0.2, rewarmSec: 0, connections: 10 }
  : { rounds: 7, durationSec: 1.5, warmupSec: 0.5, rewarmSec: 0.1, connections: 10 };
const gatewayBody = bodies.b350;
// The standard body padded (infoPagador) to the gateway body's exact size.
const pix = {
  endToEndId: 'E12345678202611270300abcdefghijk',
  txid: 'c3e0e7a4e7f1469a9f782d3d4999343c',
  valor: '159.90',
  horario: '2026-11-27T03:00:00.000Z',
  infoPagador: '',
};
const bare = JSON.stringify({ pix: [pix] }).length;
pix.infoPagador = 'x'.repeat(Math.max(0, gatewayBody.bytes.length - bare));
const apiPixText = JSON.stringify({ pix: [pix] });

const server = await startServer('api-pix-server.js');
const runs = { gateway: [], apiPix: [] };
try {
  for (let r = 0; r < plan.rounds; r++) {
    const order = r % 2 === 0 ? ['gateway', 'apiPix'] : ['apiPix', 'gateway'];
    for (const which of order) {
      const result = await load({
        url:
          which === 'gateway'
            ? `http://127.0.0.1:${server.info.gateway}/webhooks/pix`
            : `http://127.0.0.1:${server.info.apiPix}/webhooks/bank/pix?secret=${urlSecret}`,
        connections: plan.connections,
        durationSec: plan.durationSec,
        warmupSec: r === 0 ? plan.warmupSec : plan.rewarmSec,
        body: which === 'gateway' ? gatewayBody.text : apiPixText,
        headers:
          which === 'gateway'
            ? { 'content-type': 'application/json', 'x-signature': gatewayBody.signature }
            : { 'content-type': 'application/json' },
      });
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${which}: ${JSON.stringify(result)}`);
      runs[which].push(result);
    }
  }
} finally {
  await server.stop();
}
const rps = (which) => round(median(runs[which].map((x) => x.rps)), 0);
const ratio = spread(runs.gateway.map((x, i) => x.rps / runs.apiPix[i].rps));
console.log(
  JSON.stringify({
    plan,
    bytes: { gateway: gatewayBody.bytes.length, apiPix: Buffer.byteLength(apiPixText) },
    rps: { gateway: rps('gateway'), apiPix: rps('apiPix') },
    costRatio: ratio,
    withinBudget: ratio.median <= 1.1,
  }),
);
