// Process CPU per delivery (`process.cpuUsage`) of receive() with no journal, a memory journal keeping
// one entry, and one keeping 1 000 — the same loop as bench/journal.js, one subject per process run:
// `node bench/journal-cpu.js none|1|1000 [deliveries]`. CPU time survives a shared machine better than
// wall time; run the three alternately and compare. Prints one JSON line.
import { createReceiver, eventKey, memoryJournal } from 'pixhook';
import { bodies, secret } from './lib/payloads.js';

const which = process.argv[2] ?? 'none';
const total = Number(process.argv[3] ?? 200_000);
const journal = which === 'none' ? undefined : memoryJournal({ max: Number(which) });
let n = 0;
const receiver = createReceiver({ secret, dedupeKey: (event) => `${eventKey(event)}#${n++}`, ...(journal && { journal }) }).onAny(() => {});
const { bytes, signature } = bodies.b350;
const request = { method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': signature }, body: bytes };
const turn = () => new Promise((resolve) => setImmediate(resolve));

async function run(count) {
  for (let i = 0; i < count; i += 100) {
    for (let j = 0; j < 100; j++) {
      const result = await receiver.receive(request);
      if (result.status !== 200) throw new Error(`pixhook answered ${result.status}`);
    }
    await turn();
  }
}
await run(30_000);
const before = process.cpuUsage();
await run(total);
const used = process.cpuUsage(before);
await receiver.drain();
console.log(JSON.stringify({ journal: which, cpu_us_per_delivery: Math.round(((used.user + used.system) / total) * 100) / 100 }));
