// npm run bench: every section in its own process, then one table (stdout and bench/RESULTS.md) and,
// as the last line, one JSON object with every ratio and figure. `--quick` / BENCH_QUICK=1 runs each
// section for a moment (a smoke run: figures are meaningless, nothing is asserted, no file written).
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { runJson } from './lib/child.js';
import { quick, round } from './lib/stats.js';

const flag = quick ? ['--quick'] : [];
const log = (line) => process.stderr.write(`${line}\n`);
const started = Date.now();

// Quietest first: the in-process micro-benchmarks, then the ones that load both cores.
log('bench: core receive vs limit and peers …');
const core = await runJson('core.js', flag);
log('bench: memory per dedupe key …');
const memory = await runJson('memory.js', flag, { nodeFlags: ['--expose-gc'] });
log('bench: redis claim vs SET NX PX …');
const redis = await runJson('redis.js', flag);
log('bench: ack latency in background mode …');
const ack = await runJson('ack.js', flag);
log('bench: postgres transactional handler vs a bare transaction …');
const postgres = await runJson('postgres.js', flag);
log('bench: adapters vs bare routes (autocannon) …');
const adapters = await runJson('adapters.js', flag);

const v = core.versions;
const small = core.b350;
const large = core.a8k;

const targets = {
  core_vs_limit: { value: small.vs.limit, ok: small.vs.limit <= 1.6, text: '≤ 1.6×' },
  ack_p99_ms: { value: ack.p99_ms, ok: ack.p99_ms < 5, text: '< 5 ms' },
  bytes_per_key: { value: memory.bytesPerKey, ok: memory.bytesPerKey <= 256, text: '≤ 256 B' },
  redis_claim_vs_set: { value: redis.ratio, ok: redis.ratio <= 1.5, text: '≤ 1.5×' },
  pg_inbox_vs_bare: { value: postgres.ratio, ok: postgres.ratio <= 1.3, text: '≤ 1.3×' },
};
for (const [name, fw] of Object.entries(adapters.frameworks)) {
  targets[`${name}_vs_bare`] = { value: fw.ratio, ok: fw.ratio >= 0.95, text: '≥ 0.95×' };
}
// Issue 16's goals: against the hand-written verifying route of the same framework, and octokit.
for (const name of ['node', 'fastify']) {
  const fw = adapters.frameworks[name];
  targets[`${name}_vs_handwritten`] = { value: fw.pixhook_vs_limit, ok: fw.pixhook_vs_limit >= 0.85, text: '≥ 0.85×' };
}
targets.node_vs_octokit = { value: adapters.frameworks.node.pixhook_vs_octokit, ok: adapters.frameworks.node.pixhook_vs_octokit >= 1.25, text: '≥ 1.25×' };
const mark = (key) => (quick ? '' : targets[key].ok ? ' ✓' : ' ✗');

const lines = [];
const row = (...cells) => lines.push(`| ${cells.join(' | ')} |`);
const us = (ns) => `${round(ns / 1000, 2)} µs`;

lines.push('### 1. Core receive (verify + parse + normalize + dedupe claim), same bytes for everyone', '');
row('subject', `${small.label} (${small.bytes} B)`, 'pixhook ÷ subject', `${large.label} (${large.bytes} B)`, 'pixhook ÷ subject');
row('---', '---:', '---:', '---:', '---:');
const coreRows = [
  ['limit: createHmac + timingSafeEqual + JSON.parse', 'limit'],
  [`stripe ${v.stripe} webhooks.constructEvent`, 'stripe'],
  [`@octokit/webhooks ${v['@octokit/webhooks']} verify (webhooks-methods ${v['@octokit/webhooks-methods']}) + JSON.parse`, 'octokit'],
  [`standardwebhooks ${v.standardwebhooks} verify (svix's algorithm; svix@2 needs Node 22)`, 'svix'],
];
row('**pixhook receive() (inline, no-op handler)**', `**${us(small.ns.pixhook)}**`, '', `**${us(large.ns.pixhook)}**`, '');
for (const [label, key] of coreRows) {
  row(label, us(small.ns[key]), `${small.vs[key]}×${key === 'limit' ? mark('core_vs_limit') : ''}`, us(large.ns[key]), `${large.vs[key]}×`);
}
row('_pixhook verifySignature alone_', us(small.ns['pixhook verify']), '', us(large.ns['pixhook verify']), '');
row('_pixhook decode + JSON.parse + normalizeEvent alone_', us(small.ns['pixhook parse+normalize']), '', us(large.ns['pixhook parse+normalize']), '');
lines.push(
  '',
  `Target (issue 16): ≤ 1.6× the limit on the 405-byte body. Ratios are medians of per-round ratios (${quick ? 'a few' : '40'} alternating rounds in one process, ~25 ms per subject per round, after warm-up). ` +
    'Every receive() is a new claim (the same bytes, with a counter in the dedupe key), so the store runs full at its max.',
  '',
);

lines.push(`### 2. Adapter throughput vs the same framework's bare and hand-written verifying routes (autocannon, ${adapters.plan.connections} connections, ${adapters.plan.durationSec} s after ${adapters.plan.warmupSec} s warm-up, ${adapters.plan.rounds} alternating rounds, ${adapters.body})`, '');
row('framework', 'bare req/s', 'hand-written verifying req/s', 'pixhook req/s', 'pixhook ÷ hand-written', 'pixhook ÷ bare', 'hand-written ÷ bare');
row('---', '---:', '---:', '---:', '---:', '---:', '---:');
const names = { express: 'Express 5', fastify: 'Fastify 5', node: 'node:http', web: 'fetch handler (Hono on @hono/node-server)' };
const goal = { node: 'node_vs_handwritten', fastify: 'fastify_vs_handwritten' };
for (const [name, fw] of Object.entries(adapters.frameworks)) {
  row(names[name], fw.bare_rps, fw.limit_rps, fw.pixhook_rps, `${fw.pixhook_vs_limit}×${goal[name] ? mark(goal[name]) : ''}`, `${fw.ratio}×${mark(`${name}_vs_bare`)}`, `${fw.limit_vs_bare}×`);
}
const nodeFw = adapters.frameworks.node;
lines.push(
  '',
  'The hand-written verifying route is the bare route plus the limit\'s HMAC + timingSafeEqual + JSON.parse: the ceiling for any receiver that verifies. ' +
    'Targets: node:http and Fastify ≥ 0.85× their hand-written route; every adapter ≥ 0.95× bare (out of reach by construction: the hand-written route itself is below it).',
  '',
  'node:http peers, same run, same bytes, same `sha256=` HMAC (octokit reads `x-hub-signature-256`; every route gets the same headers):',
  '',
);
row('node:http route', 'req/s', '÷ hand-written', 'pixhook ÷ it');
row('---', '---:', '---:', '---:');
row('hand-written verifying route', nodeFw.limit_rps, '1×', `${nodeFw.pixhook_vs_limit}×${mark('node_vs_handwritten')}`);
row(`@octokit/webhooks ${v['@octokit/webhooks']} createNodeMiddleware (a registered \`push\` handler)`, nodeFw.octokit_rps, `${nodeFw.octokit_vs_limit}×`, `${nodeFw.pixhook_vs_octokit}×${mark('node_vs_octokit')}`);
row('**pixhook createNodeHandler (inline, no-op handler)**', `**${nodeFw.pixhook_rps}**`, `**${nodeFw.pixhook_vs_limit}×**`, '');
row('_prototype: bench/prototypes/lean-node.js (same guarantees, lean plumbing; not shipped)_', nodeFw.prototype_rps, `${nodeFw.prototype_vs_limit}×`, '');
lines.push('', 'Target: pixhook ≥ 1.25× createNodeMiddleware.', '');

lines.push('### 3. Acknowledgement latency, background mode, every handler sleeping 5 s (node adapter)', '');
row('rate', 'deliveries', 'p50', 'p99', 'max');
row('---', '---:', '---:', '---:', '---:');
row(`${ack.rate}/s for ${ack.durationSec} s`, ack.ok, `${ack.p50_ms} ms`, `${ack.p99_ms} ms${mark('ack_p99_ms')}`, `${ack.max_ms} ms`);
lines.push('', 'Target: p99 < 5 ms.', '');

lines.push('### 4. In-memory dedupe store, heap per key after GC (claim + complete per key)', '');
row('keys (store max)', 'heap', 'bytes per key');
row('---', '---:', '---:');
for (const [n, s] of Object.entries(memory.sizes)) row(`${n} (${n})`, `${round(s.heapBytes / 1048576, 1)} MiB`, `${s.bytesPerKey} B${Number(n) === Math.max(...Object.keys(memory.sizes).map(Number)) ? '' : mark('bytes_per_key')}`);
row(`${memory.bounded.inserted} (${memory.bounded.max})`, `${round(memory.bounded.heapBytes / 1048576, 1)} MiB`, `bounded: ${memory.bounded.keys} keys held (≤ 2 × max; the newest max always kept)`);
lines.push('', 'Target: ≤ 256 B per key, and bounded by the store\'s `max` (two Map generations of `max` keys each).', '');

lines.push('### 5. Redis claim vs raw SET NX PX (same server, same ioredis client, one call at a time)', '');
row('SET NX PX', 'redisDedupeStore.claim', 'claim ÷ SET');
row('---:', '---:', '---:');
row(`${redis.set_us} µs`, `${redis.claim_us} µs`, `${redis.ratio}×${mark('redis_claim_vs_set')}`);
lines.push('', 'Target: ≤ 1.5×.', '');

lines.push('### 6. Postgres: a transactional handler vs the same INSERT in a bare transaction (same pg Pool, same server, fsync on, one event at a time)', '');
row('BEGIN; INSERT; COMMIT', 'inbox.transactional (BEGIN + claim; INSERT; COMMIT)', 'inbox ÷ bare');
row('---:', '---:', '---:');
row(`${postgres.bare_us} µs`, `${postgres.inbox_us} µs`, `${postgres.ratio}×${mark('pg_inbox_vs_bare')}`);
lines.push(
  '',
  'Target: ≤ 1.3×. The claim is one `INSERT … ON CONFLICT` sent in the same round trip as `BEGIN`, so both sides make three round trips; the difference is the inbox row itself (a primary-key insert and its WAL) and the wrapper.',
);

const table = lines.join('\n');
const cpus = os.cpus();
const machine = `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${round(os.totalmem() / 2 ** 30, 1)} GiB RAM, ${os.type()} ${os.release()} (${os.arch()})`;
const json = {
  core_vs_limit: small.vs.limit,
  core_vs_stripe: small.vs.stripe,
  core_vs_octokit: small.vs.octokit,
  core_vs_svix: small.vs.svix,
  express_vs_bare: adapters.frameworks.express.ratio,
  fastify_vs_bare: adapters.frameworks.fastify.ratio,
  node_vs_bare: adapters.frameworks.node.ratio,
  web_vs_bare: adapters.frameworks.web.ratio,
  ack_p50_ms: ack.p50_ms,
  ack_p99_ms: ack.p99_ms,
  bytes_per_key: memory.bytesPerKey,
  redis_claim_vs_set: redis.ratio,
  core_vs_limit_8k: large.vs.limit,
  core_vs_stripe_8k: large.vs.stripe,
  core_vs_octokit_8k: large.vs.octokit,
  core_vs_svix_8k: large.vs.svix,
  core_ns: small.ns.pixhook,
  limit_ns: small.ns.limit,
  core_ns_8k: large.ns.pixhook,
  limit_ns_8k: large.ns.limit,
  bytes_per_key_1m: memory.sizes[Math.max(...Object.keys(memory.sizes).map(Number))].bytesPerKey,
  memory_bounded_keys: memory.bounded.keys,
  redis_claim_us: redis.claim_us,
  redis_set_us: redis.set_us,
  pg_inbox_vs_bare: postgres.ratio,
  pg_bare_us: postgres.bare_us,
  pg_inbox_us: postgres.inbox_us,
  node_vs_handwritten: adapters.frameworks.node.pixhook_vs_limit,
  node_vs_octokit: adapters.frameworks.node.pixhook_vs_octokit,
  fastify_vs_handwritten: adapters.frameworks.fastify.pixhook_vs_limit,
  express_vs_handwritten: adapters.frameworks.express.pixhook_vs_limit,
  web_vs_handwritten: adapters.frameworks.web.pixhook_vs_limit,
  octokit_vs_handwritten: adapters.frameworks.node.octokit_vs_limit,
  node_prototype_vs_handwritten: adapters.frameworks.node.prototype_vs_limit,
  node_prototype_vs_octokit: adapters.frameworks.node.prototype_vs_octokit,
  ...Object.fromEntries(Object.entries(adapters.frameworks).flatMap(([n, fw]) => [[`${n}_limit_vs_bare`, fw.limit_vs_bare], [`${n}_vs_limit`, fw.pixhook_vs_limit]])),
  targets_missed: quick ? [] : Object.entries(targets).filter(([, t]) => !t.ok).map(([k]) => k),
  quick,
  node: process.version,
  seconds: round((Date.now() - started) / 1000, 1),
};

// What the profiles showed; kept with the figures so a reader of RESULTS.md knows why a target is missed.
const notes = [
  '### Where the time goes',
  '',
  '- Core, small body (`node --cpu-prof` of `receive()`): HMAC (`Hmac` + `digest` + `update`) ~31 % and `JSON.parse` ~19 %',
  '  are the limit\'s own work; GC ~11 %; the memory store\'s two `Map` lookups ~9 % (a fresh ~60-character key hashed',
  '  and inserted into a 100 000-key table: cache misses, and the key survives into the old generation); the rest',
  '  (normalize, key, claim keeper, dispatch, answer, two `performance.now()`) is spread thin — no hot spot left.',
  '  On the 8 KB body the same fixed cost is small next to HMAC and `JSON.parse`.',
  '- Issue 16 changes, each measured in-process: the signature digest decoded into a `Buffer` instead of an on-heap',
  '  `Uint8Array` (node:crypto materializes the latter: `verifySignature` 4.05 → 3.14 µs); lru-cache replaced by two',
  '  `Map` generations (claim + complete 1.23 → 0.78 µs at 100 000 keys, side by side); no closures or option objects made per',
  '  delivery on the synchronous path.',
  '- node:http (`--cpu-prof` under autocannon): the response `writev` system call is the largest single cost of every',
  '  route (~40 % of pixhook\'s CPU, ~55 % of the hand-written route\'s). The adapter now reads the body with listeners',
  '  and answers in the stream\'s `\'end\'` turn (no promise), with a prebuilt header list carrying Content-Length (no',
  '  chunked framing). The ablations in `bench/prototypes/http-ablation.js` put today\'s adapter within the noise of the',
  '  same core behind a hand-written reader; the lean prototype (same guarantees, fewer layers) stays ~0.05–0.1 ahead,',
  '  which is the price of the layered core (processing, claim keeper, metrics) in a cache-cold HTTP loop.',
  '- HTTP ratios on this 2-core machine move ±0.05–0.1 between runs (load generator on the other core).',
].join('\n');

console.log(table);
if (!quick) {
  const header = [
    '# pixhook benchmark results',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Node: ${process.version}`,
    `- Machine: ${machine}`,
    `- Run: \`npm run bench\` (${json.seconds} s). Other processes shared the two cores; every figure is a ratio measured side by side in the same run.`,
    '',
  ].join('\n');
  writeFileSync(new URL('./RESULTS.md', import.meta.url), `${header}\n${table}\n\n${notes}\n\n\`\`\`json\n${JSON.stringify(json)}\n\`\`\`\n`);
}
console.log(JSON.stringify(json));
