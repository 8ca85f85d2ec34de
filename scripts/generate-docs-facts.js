// `node scripts/generate-docs-facts.js`: rewrites the generated regions of README.md and docs/ from the code,
// so the facts that change (reason codes, dedupe keys, time defaults, CLI flags, the demo's rows) cannot drift.
// `--print` writes the regions as JSON on stdout instead (test/docs/docs-facts.test.ts compares them).
// Needs the built package (`npm run build`). A region is the text between
//   <!-- generated:NAME (node scripts/generate-docs-facts.js) -->  and  <!-- /generated:NAME -->
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = `${root}bin/pixhook.js`;

/** Which regions live in which files. */
export const regionFiles = {
  reasons: ['docs/reference/reasons.md'],
  'dedupe-key-examples': ['docs/reference/events.md'],
  'time-defaults': ['docs/reference/options.md'],
  'cli-flags': ['docs/reference/cli.md'],
  'demo-rows': ['README.md', 'docs/testing.md'],
};

const cell = (text) => String(text).replaceAll('|', '\\|');

async function reasonsTable() {
  const { reasonCodes, reasonStatus, reasonMessage, reasonGroup } = await import(`${root}dist/src/shared/reasons.js`);
  const rows = reasonCodes.map((r) => `| \`${r}\` | ${reasonStatus[r]} | ${reasonGroup(r)} | ${cell(reasonMessage[r])} |`);
  return ['| reason | status | decided by | default `message` |', '|---|---|---|---|', ...rows].join('\n');
}

async function dedupeKeyExamples() {
  const { eventKey, normalizeEvent } = await import(`${root}dist/src/index.js`);
  const { buildPayload } = await import(`${root}dist/src/testing/index.js`);
  const keyOf = (name, options) => {
    const result = normalizeEvent(buildPayload(name, { seed: 1, ...options }));
    if (!result.ok) throw new Error(`generate-docs-facts: ${name} did not normalize`);
    return eventKey(result.event);
  };
  const { readPixItem } = await import(`${root}dist/src/api-pix/index.js`);
  // An API Pix devolução "1" of R$5,00 on a Pix of txid tx123: the key of its pix_refund_updated.
  const devolucaoKey = (endToEndId, status) => {
    const devolucao = { id: '1', rtrId: 'D1234', valor: '5.00', horario: { solicitacao: '2026-11-22T13:00:00Z' }, status };
    const item = { endToEndId, txid: 'tx123', valor: '19.90', horario: '2026-11-22T12:00:00Z', devolucoes: [devolucao] };
    const read = readPixItem(item, 'pix.0');
    if (read.failures.length > 0) throw new Error('generate-docs-facts: the devolução example did not read');
    return eventKey(read.events[1]);
  };
  const paid = { id: 'tx_123', amountInCents: 1990 };
  const refundedAt = (hour) => `2026-11-22T${hour}:00:00Z`;
  const examples = [
    ['a payment', keyOf('transaction_paid', { ...paid, endToEndId: 'E1234' })],
    [
      'the same payment sent as Variant B, through the other channel, or retried',
      keyOf('transaction_paid', { ...paid, endToEndId: 'E1234', variant: 'b', scope: 'user', deliveryId: 'dlv_9' }),
    ],
    ['a second payment of the same amount (another endToEndId)', keyOf('transaction_paid', { ...paid, endToEndId: 'E5678' })],
    ['the same id paid with another amount', keyOf('transaction_paid', { ...paid, amountInCents: 1900, endToEndId: 'E1234' })],
    [
      'the first of two partial refunds',
      keyOf('transaction_refunded', { ...paid, refund: { amountInCents: 500, refundedAt: refundedAt(13) } }),
    ],
    ['the second', keyOf('transaction_refunded', { ...paid, refund: { amountInCents: 300, refundedAt: refundedAt(14) } })],
    ['a refund that carries its own id', keyOf('transaction_refunded', { ...paid, refund: { id: 'rf_1', amountInCents: 500 } })],
    ['a MED dispute (the charge stays `paid`)', keyOf('transaction_infraction', { ...paid, infraction: { id: 'med_1', status: 'open' } })],
    ['the same dispute closing', keyOf('transaction_infraction', { ...paid, infraction: { id: 'med_1', status: 'closed' } })],
    ['an API Pix devolução still processing: its Pix’s endToEndId, its id, its status', devolucaoKey('E1234', 'EM_PROCESSAMENTO')],
    ['the same devolução returned: a fact of its own', devolucaoKey('E1234', 'DEVOLVIDO')],
    ['refund `"1"` of another Pix on the same txid', devolucaoKey('E5678', 'DEVOLVIDO')],
    ['a transfer', keyOf('transfer_completed', { id: 'tr_9', amountInCents: 7000 })],
    ['an id holding a colon', keyOf('transaction_created', { id: 'tx:1', amountInCents: 1990 })],
  ];
  return ['| event | key (`eventKey`) |', '|---|---|', ...examples.map(([what, key]) => `| ${what} | \`${key}\` |`)].join('\n');
}

/** Evaluates a literal like `24 * 60 * 60 * 1000` or `5_000` read from the source; nothing else is accepted. */
function literal(text) {
  if (!/^[\d_*\s]+$/.test(text)) throw new Error(`generate-docs-facts: not a numeric literal: ${text}`);
  return text.split('*').reduce((product, part) => product * Number(part.trim().replaceAll('_', '')), 1);
}

function sourceDefault(source, option) {
  const match = new RegExp(`${option}: check\\w+\\('${option}', options\\.${option}, ([^)]+)\\)`).exec(source);
  if (!match) throw new Error(`generate-docs-facts: no default for ${option} in processing-options.ts`);
  return literal(match[1]);
}

function duration(ms) {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return `${ms} ms`;
}

/** The processing's time defaults: the claim and done TTLs as a store really receives them, the rest from the source. */
async function timeDefaults() {
  const { createProcessing } = await import(`${root}dist/src/index.js`);
  const { buildPayload } = await import(`${root}dist/src/testing/index.js`);
  const { normalizeEvent } = await import(`${root}dist/src/index.js`);
  const seen = {};
  const store = {
    local: true,
    claim: (_key, _owner, ttlMs) => ((seen.claim = ttlMs), 'claimed'),
    complete: (_key, _owner, ttlMs) => ((seen.complete = ttlMs), true),
    release: () => {},
    extend: () => true,
  };
  const processing = createProcessing({ store }).on('transaction_paid', () => {});
  const parsed = normalizeEvent(buildPayload('transaction_paid', { seed: 1 }));
  await processing.accept(parsed.event);
  const options = readFileSync(`${root}src/processing/processing-options.ts`, 'utf8');
  const keeper = readFileSync(`${root}src/dedupe/claim-keeper.ts`, 'utf8');
  const every = /const everyMs = Math\.max\(\d+, Math\.floor\(ttlMs \/ (\d+)\)\)/.exec(keeper);
  const timeouts = /defaultHandlerTimeoutMs: Record<AckMode, number> = \{ inline: ([^,]+), background: ([^,]+), durable: ([^}]+) \}/.exec(
    options,
  );
  if (!every || !timeouts) throw new Error('generate-docs-facts: the claim keeper or handler timeouts changed shape');
  const rows = [
    ['`dedupeTtlMs`', duration(seen.complete), 'how long a done key is remembered (a redelivery answers `duplicate`)'],
    ['`claimTtlMs`', duration(seen.claim), 'how long a claim lives unless renewed; a dead instance frees its keys within it'],
    [
      'claim renewal',
      `every \`claimTtlMs\` / ${every[1]} (${duration(seen.claim / Number(every[1]))})`,
      'from the claim on, by one timer per processing; a claim not renewed for half its TTL is declared lost; the memory store pins the claim of a live run instead (no renewal, no lapse until the run ends), and in-process order leases pin the lease of a live run alike',
    ],
    ['`deadlineMs`', duration(sourceDefault(options, 'deadlineMs')), 'inline mode: when the answer stops waiting (503 `handler_timeout`)'],
    [
      '`handlerTimeoutMs`',
      `${duration(literal(timeouts[1]))} inline, ${duration(literal(timeouts[2]))} background, ${duration(literal(timeouts[3].trim()))} durable`,
      'when a run counts as failed',
    ],
    [
      '`storeTimeoutMs`',
      duration(sourceDefault(options, 'storeTimeoutMs')),
      'bound on every remote store or queue call (then 503 `store_unavailable`)',
    ],
    [
      '`orderWaitMs`',
      duration(sourceDefault(options, 'orderWaitMs')),
      'how long an event waits for the handlers of an earlier event of its charge or transfer (then 503 `resource_busy`)',
    ],
  ];
  return ['| option | default | meaning |', '|---|---|---|', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
}

function help(path) {
  return execFileSync(process.execPath, [bin, ...path, '--help'], { encoding: 'utf8' });
}

/** Every command and subcommand path the CLI lists, with its --help text. */
export function cliHelps() {
  const overview = help([]);
  const commands = [...overview.matchAll(/^ {2}([a-z][a-z-]*) {2,}/gm)].map((m) => [m[1]]);
  const helps = new Map();
  const visit = (path) => {
    const text = help(path);
    helps.set(path.join(' '), text);
    const subcommands = text.split('\nsubcommands (each has --help):\n')[1]?.split('\n\n')[0] ?? '';
    for (const line of subcommands.split('\n').filter(Boolean)) {
      const words = line.trim().split(/\s+/).slice(1);
      const sub = [];
      for (const word of words)
        if (/^[a-z][a-z-]*$/.test(word) && sub.length < words.length) sub.push(word);
        else break;
      if (sub.length > path.length) visit(sub);
    }
  };
  for (const command of commands) visit(command);
  return helps;
}

/** The flags a --help text lists, with their meaning. */
export function flagsOf(text) {
  const block = text.split('\nflags:\n')[1]?.split('\n\n')[0] ?? '';
  return block
    .split('\n')
    .map((line) => /^ {2}(?:-\w, )?(--[a-z][a-z-]*)((?: <[^>]+>)?) {2,}(.*)$/.exec(line))
    .filter((m) => m !== null && m[1] !== '--help')
    .map((m) => ({ flag: m[1], value: m[2].trim(), meaning: m[3] }));
}

function cliFlags() {
  const sections = [];
  for (const [path, text] of cliHelps()) {
    const usage = /^usage: (.*)$/m.exec(text)[1];
    const flags = flagsOf(text);
    const table = flags.length
      ? ['| flag | meaning |', '|---|---|', ...flags.map((f) => `| \`${f.flag}${f.value ? ` ${f.value}` : ''}\` | ${cell(f.meaning)} |`)]
      : ['No flags but `--help`.'];
    sections.push([`### \`pixhook ${path}\``, '', `\`${usage}\``, '', ...table].join('\n'));
  }
  return sections.join('\n\n');
}

function demoRows() {
  const out = execFileSync(process.execPath, [`${root}examples/demo/run.js`], { cwd: root, encoding: 'utf8' });
  const lines = out.split('\n');
  const first = lines.findIndex((line) => line.startsWith('#  '));
  const last = lines.findLastIndex((line) => /^[✓✗] /.test(line));
  return ['```text', ...lines.slice(first, last + 1), '```'].join('\n');
}

export async function generateRegions() {
  return {
    reasons: await reasonsTable(),
    'dedupe-key-examples': await dedupeKeyExamples(),
    'time-defaults': await timeDefaults(),
    'cli-flags': cliFlags(),
    'demo-rows': demoRows(),
  };
}

const marker = (name) => [`<!-- generated:${name} (node scripts/generate-docs-facts.js) -->`, `<!-- /generated:${name} -->`];

/** The text of region `name` in `text`, or undefined when the file has no such region. */
export function regionIn(text, name) {
  const [open, close] = marker(name);
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start === -1 || end === -1) return undefined;
  return text
    .slice(start + open.length, end)
    .replace(/^\n/, '')
    .replace(/\n$/, '');
}

function replaceRegion(text, name, body) {
  const [open, close] = marker(name);
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start === -1 || end === -1) throw new Error(`generate-docs-facts: no region ${name}`);
  return `${text.slice(0, start + open.length)}\n${body}\n${text.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const regions = await generateRegions();
  if (process.argv.includes('--print')) {
    process.stdout.write(`${JSON.stringify(regions)}\n`);
  } else {
    for (const [name, files] of Object.entries(regionFiles)) {
      for (const file of files) {
        const path = `${root}${file}`;
        writeFileSync(path, replaceRegion(readFileSync(path, 'utf8'), name, regions[name]));
        console.log(`generate-docs-facts: ${file} ${name}`);
      }
    }
  }
}
