// Issue 23: receive() with the memory journal against receive() without one, side by side in one process
// (alternating rounds, paired ratios). Each call of a subject is a batch of deliveries followed by one
// turn of the event loop, so the journal's writes (queued after each answer, flushed in a setImmediate)
// are inside the measured time, not left to pile up. Target: ≤ 1.1×.
import { createReceiver, eventKey, memoryJournal } from 'pixhook';
import { bodies, secret } from './lib/payloads.js';
import { interleave, pairedSpread } from './lib/interleave.js';
import { median, quick, round } from './lib/stats.js';

const batch = 100;
const turn = () => new Promise((resolve) => setImmediate(resolve));

function subject(journal) {
  const { bytes, signature } = bodies.b350;
  // Every delivery reaches the claim and the handler: same bytes, so the key gets a counter.
  let n = 0;
  const receiver = createReceiver({ secret, dedupeKey: (event) => `${eventKey(event)}#${n++}`, ...(journal && { journal }) }).onAny(
    () => {},
  );
  const request = { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': signature }, body: bytes };
  return {
    async: true,
    async fn() {
      for (let i = 0; i < batch; i++) {
        const result = await receiver.receive(request);
        if (result.status !== 200) throw new Error(`pixhook answered ${result.status} ${result.reason}`);
      }
      await turn();
    },
    receiver,
  };
}

const journal = memoryJournal({ max: 1000 });
const subjects = { without: subject(undefined), with: subject(journal) };
const options = quick
  ? { rounds: 3, sliceMs: 5, warmupMs: 50, calibrate: 20, minIterations: 5 }
  : { rounds: 40, sliceMs: 50, warmupMs: 1000, calibrate: 50, minIterations: 20 };
const rounds = Number(process.env.BENCH_JOURNAL_ROUNDS ?? options.rounds);
const samples = await interleave(subjects, { ...options, rounds });
await subjects.with.receiver.drain();
const recorded = await journal.list({ limit: 1 });
if (recorded.length !== 1 || recorded[0].attempts.length !== 1) throw new Error('the journal did not record the deliveries');
if (subjects.with.receiver.metrics().journalFailures !== 0) throw new Error('the journal dropped deliveries');

const perDelivery = (name) => round(median(samples[name]) / batch, 0);
console.log(
  JSON.stringify({
    body: bodies.b350.label,
    batch,
    rounds,
    ns_per_delivery: { without: perDelivery('without'), with: perDelivery('with') },
    journal_vs_none: pairedSpread(samples, 'with', 'without'),
    target: '≤ 1.1×',
  }),
);
