// `npm run demo`: a receiver in background mode on a free port, driven by the gateway's delivery
// simulator through a scripted scenario; prints one table row per delivery and exits 1 if any row
// did not turn out as the receiver contract says it must.
import { createServer } from 'node:http';
import { PGlite } from '@electric-sql/pglite';
import { createReceiver } from 'pixhook';
import { postgresInbox, transactionalOutcome } from 'pixhook/postgres';
import { buildPayload, deliver, sign, transactionPaid, transferCompleted } from 'pixhook/testing';

const secret = 'demo_webhook_secret';
// The gateway waits 1 s, 2 s, 4 s, 8 s between attempts; the demo keeps the doubling but scales it down.
const sending = { retry: { attempts: 5, backoff: { delayMs: 50, factor: 2 } } };

// What the merchant's handlers did, per transaction/transfer id.
const runs = new Map();
const failOnce = new Set(['txn_demo_fail_bg', 'txn_demo_fail_inline']);

function handler(event) {
  const resource = event.kind === 'transaction' ? event.transaction : event.transfer;
  const record = runs.get(resource.id) ?? { runs: 0, handled: 0 };
  runs.set(resource.id, record);
  record.runs++;
  if (failOnce.has(resource.id) && record.runs === 1) throw new Error('simulated outage: database unavailable');
  record.handled++;
}

const background = createReceiver({ secret, mode: 'background', retry: { backoff: { delayMs: 50 } } }).onAny(handler);
const inline = createReceiver({ secret, mode: 'inline' }).onAny(handler);
const routes = { '/webhooks/pix': background, '/webhooks/pix-inline': inline };

// Exactly-once effects: an embedded Postgres (PGlite, WASM: no server), a ledger table, and a
// transactional handler whose INSERT commits together with the event's key in pixhook's inbox.
const pglite = await PGlite.create();
const database = {
  query: (text, values) => pglite.query(text, values),
  // PGlite is one connection: its transactions already run one at a time.
  transaction: (_isolation, fn) => pglite.transaction((tx) => fn({ query: (text, values) => tx.query(text, values) })),
  session: (fn) => fn({ query: (text, values) => pglite.query(text, values) }, new Promise(() => {})),
};
const inbox = postgresInbox({ pool: database });
await inbox.migrate();
await pglite.query('CREATE TABLE ledger (event_key text NOT NULL, tx_id text NOT NULL, amount_in_cents integer NOT NULL)');
const ledgerRuns = { runs: 0, skipped: 0, failNext: false };
const book = inbox.transactional(async (event, { key, tx }) => {
  ledgerRuns.runs++;
  await tx.query('INSERT INTO ledger (event_key, tx_id, amount_in_cents) VALUES ($1, $2, $3)', [
    key,
    event.transaction.id,
    event.transaction.amountInCents,
  ]);
  if (ledgerRuns.failNext) {
    ledgerRuns.failNext = false;
    throw new Error('simulated crash after the INSERT, before COMMIT');
  }
});
// A receiver process, and the same code after a restart: its in-memory dedupe store starts empty.
const ledgerReceiver = () =>
  createReceiver({ secret, mode: 'inline' })
    .on('transaction_paid', book)
    .onAny((_event, context) => void (transactionalOutcome(context) === 'skipped' && ledgerRuns.skipped++));
routes['/webhooks/pix-ledger'] = ledgerReceiver();
routes['/webhooks/pix-ledger-restarted'] = ledgerReceiver();

const server = createServer(async (req, res) => {
  const receiver = routes[new URL(req.url ?? '/', 'http://localhost').pathname];
  if (!receiver) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const result = await receiver.receive({ method: req.method, headers: req.headers, body: Buffer.concat(chunks) });
  res.writeHead(result.status, result.headers).end(result.body);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${server.address().port}`;
const url = `${base}/webhooks/pix`;

const paidB = transactionPaid({ variant: 'b', id: 'txn_demo_repeat', amountInCents: 2500, seed: 5 });
const scenarios = [
  {
    delivery: 'charge paid, Variant A',
    send: () => once({ body: transactionPaid({ variant: 'a', id: 'txn_demo_a', amountInCents: 15990, seed: 1 }) }),
    expect: { answers: '200', handled: 1 },
    why: 'verified, normalized from Variant A, handled',
    id: 'txn_demo_a',
  },
  {
    delivery: 'charge paid, Variant B',
    send: () => once({ body: transactionPaid({ variant: 'b', id: 'txn_demo_b', amountInCents: 15990, seed: 2 }) }),
    expect: { answers: '200', handled: 1 },
    why: 'same typed event from the Variant B shape (payer, endToEndId)',
    id: 'txn_demo_b',
  },
  {
    delivery: 'charge created, short B form',
    send: () => once({ body: buildPayload('transaction_created', { variant: 'short', id: 'txn_demo_short', seed: 3 }) }),
    expect: { answers: '200', handled: 1 },
    why: 'short form: id, type, event, transaction{id, amount, status}',
    id: 'txn_demo_short',
  },
  {
    delivery: 'transfer completed, Variant B',
    send: () => once({ body: transferCompleted({ variant: 'b', id: 'trf_demo_out', amountInCents: 100000, seed: 4 }) }),
    expect: { answers: '200', handled: 1 },
    why: 'transfer events carry `transfer`, not `transaction`',
    id: 'trf_demo_out',
  },
  {
    delivery: 'same delivery retried 5 times',
    send: async () => {
      const results = [];
      for (let i = 0; i < 5; i++) results.push(await once({ body: paidB }));
      return { attempts: results.flatMap((r) => r.attempts), delivered: results.every((r) => r.delivered) };
    },
    expect: { answers: '200, 200 duplicate×4', handled: 1 },
    why: 'one fact, one dedupe key (name:id:status:amount): the handler ran once',
    id: 'txn_demo_repeat',
  },
  {
    delivery: 'forged signature',
    send: async () => {
      const body = transactionPaid({ id: 'txn_demo_forged', seed: 6 });
      return deliver({ url, body, signature: await sign(JSON.stringify(body), 'an_attacker_guess'), ...sending });
    },
    expect: { answers: '401 signature_mismatch×5', handled: 0 },
    why: 'rejected before parsing; the sender gives up after 5',
    id: 'txn_demo_forged',
  },
  {
    delivery: 'malformed body (signed)',
    send: () => deliver({ url, body: '{"event":"transaction_paid","data":{', secret, ...sending }),
    expect: { answers: '400 json_invalid×5', handled: 0 },
    why: 'signature holds, but the bytes are not JSON',
    id: undefined,
  },
  {
    delivery: 'handler fails once (background)',
    send: () => once({ body: transactionPaid({ id: 'txn_demo_fail_bg', seed: 7 }) }),
    expect: { answers: '200', handled: 1, runs: 2 },
    why: 'answered 200 at once; the in-process retry succeeded',
    id: 'txn_demo_fail_bg',
  },
  {
    delivery: 'handler fails once (inline)',
    send: () =>
      deliver({ url: `${base}/webhooks/pix-inline`, body: transactionPaid({ id: 'txn_demo_fail_inline', seed: 8 }), secret, ...sending }),
    expect: { answers: '500 handler_failed, 200', handled: 1, runs: 2 },
    why: "claim released on failure, so the sender's retry ran it again",
    id: 'txn_demo_fail_inline',
  },
];

const ledgerPaid = transactionPaid({ variant: 'b', id: 'txn_demo_ledger', amountInCents: 4990, seed: 9 });
const ledgerFail = transactionPaid({ id: 'txn_demo_ledger_fail', amountInCents: 1200, seed: 10 });
const ledgerRows = async (id) => (await pglite.query('SELECT count(*)::int AS n FROM ledger WHERE tx_id = $1', [id])).rows[0].n;
const exactlyOnce = [
  {
    delivery: 'paid → ledger INSERT (inline)',
    send: () => deliver({ url: `${base}/webhooks/pix-ledger`, body: ledgerPaid, secret, ...sending }),
    expect: { answers: '200', rows: 1, runs: 1, skipped: 0 },
    why: 'the INSERT and the key committed in one transaction',
    id: 'txn_demo_ledger',
  },
  {
    delivery: 'redelivered after a restart',
    send: () => deliver({ url: `${base}/webhooks/pix-ledger-restarted`, body: ledgerPaid, secret, ...sending }),
    expect: { answers: '200 duplicate', rows: 1, runs: 0, skipped: 1 },
    why: 'new process, empty dedupe store: the inbox saw the key, skipped the handler: 200 duplicate',
    id: 'txn_demo_ledger',
  },
  {
    delivery: 'crash between INSERT and COMMIT',
    send: () => {
      ledgerRuns.failNext = true;
      return deliver({ url: `${base}/webhooks/pix-ledger`, body: ledgerFail, secret, ...sending });
    },
    expect: { answers: '500 handler_failed, 200', rows: 1, runs: 2, skipped: 0 },
    why: "rolled back with its key, so the sender's retry booked it once",
    id: 'txn_demo_ledger_fail',
  },
];

function once(options) {
  return deliver({ url, secret, ...sending, ...options });
}

const startedAt = performance.now();
const rows = [];
let failures = 0;
for (const [index, scenario] of scenarios.entries()) {
  const result = await scenario.send();
  await background.drain(); // background handlers (and their retries) finish before we look
  const record = (scenario.id && runs.get(scenario.id)) || { runs: 0, handled: 0 };
  const answers = summarize(result.attempts.map(answerOf));
  const ok =
    answers === scenario.expect.answers &&
    record.handled === scenario.expect.handled &&
    (scenario.expect.runs === undefined || record.runs === scenario.expect.runs);
  if (!ok) failures++;
  rows.push([
    `${ok ? '✓' : '✗'} ${index + 1}`,
    scenario.delivery,
    String(result.attempts.length),
    answers,
    record.handled > 0 ? (record.runs > 1 ? `yes (${record.runs} runs)` : 'yes') : 'no',
    ok ? scenario.why : `UNEXPECTED: wanted ${scenario.expect.answers}, handled ${scenario.expect.handled}`,
  ]);
}
const ledgerTable = [];
for (const [index, scenario] of exactlyOnce.entries()) {
  const before = { ...ledgerRuns };
  const result = await scenario.send();
  const answers = summarize(result.attempts.map(answerOf));
  const rowsBooked = await ledgerRows(scenario.id);
  const ran = ledgerRuns.runs - before.runs;
  const skipped = ledgerRuns.skipped - before.skipped;
  const ok =
    answers === scenario.expect.answers &&
    rowsBooked === scenario.expect.rows &&
    ran === scenario.expect.runs &&
    skipped === scenario.expect.skipped;
  if (!ok) failures++;
  ledgerTable.push([
    `${ok ? '✓' : '✗'} pg${index + 1}`,
    scenario.delivery,
    String(result.attempts.length),
    answers,
    `${rowsBooked} (${ran} run${ran === 1 ? '' : 's'}${skipped ? ', skipped' : ''})`,
    ok ? scenario.why : `UNEXPECTED: wanted ${scenario.expect.answers}, ${scenario.expect.rows} row(s)`,
  ]);
}
const elapsed = performance.now() - startedAt;

console.log(`pixhook demo — receiver in background mode at ${url}`);
console.log(
  `simulator: POST + X-Signature, up to ${sending.retry.attempts} attempts, backoff ${sending.retry.backoff.delayMs} ms doubling (the gateway: 1 s doubling)\n`,
);
printTable(['#', 'delivery', 'attempts', 'answers', 'handled', 'why'], rows);
console.log('\nexactly-once effects on Postgres (pixhook/postgres on an embedded PGlite): a transactional handler books each payment');
printTable(['#', 'delivery', 'attempts', 'answers', 'ledger rows', 'why'], ledgerTable);
const m = background.metrics();
const rejected = Object.entries(m.rejected)
  .map(([reason, n]) => `${reason} ${n}`)
  .join(', ');
console.log(
  `\n${scenarios.length + exactlyOnce.length} scenarios in ${(elapsed / 1000).toFixed(2)} s. Background receiver: ${m.received} deliveries, ` +
    `${m.handled} handled, ${m.duplicates} duplicates, ${m.failed} failed handler runs, rejected: ${rejected || 'none'}; ` +
    `mean answer ${(m.ackLatencyMs.sum / Math.max(1, m.ackLatencyMs.count)).toFixed(2)} ms.`,
);
console.log(
  failures === 0 ? 'every delivery behaved as the receiver contract says.' : `${failures} scenario(s) did not behave as expected.`,
);

await new Promise((resolve) => server.close(resolve));
await pglite.close();
process.exitCode = failures === 0 ? 0 : 1;

function answerOf(attempt) {
  if (attempt.status === undefined) return `error ${attempt.error}`;
  let reason = '';
  try {
    const json = JSON.parse(attempt.responseBody ?? '');
    reason = json.error ?? json.reason ?? '';
  } catch {
    reason = '';
  }
  return reason ? `${attempt.status} ${reason}` : String(attempt.status);
}

// "401 x, 401 x, 401 x" → "401 x×3": runs of the same answer collapse.
function summarize(answers) {
  const parts = [];
  for (const answer of answers) {
    const last = parts[parts.length - 1];
    if (last && last.answer === answer) last.count++;
    else parts.push({ answer, count: 1 });
  }
  return parts.map((p) => (p.count > 1 ? `${p.answer}×${p.count}` : p.answer)).join(', ');
}

function printTable(header, body) {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  console.log(line(header));
  console.log(line(widths.map((w) => '─'.repeat(w))));
  for (const row of body) console.log(line(row));
}
