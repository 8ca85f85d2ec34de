// Process CPU per delivery (`process.cpuUsage`) of receive() without a book and with a memory book — the
// same loop as bench/book-memory.js (each delivery a new charge, paid once), one subject per process run:
// `node bench/book-memory-cpu.js none|memory [deliveries]`. Run the two alternately and compare; with
// `BOOK_PROFILE=<file.cpuprofile>` it profiles the measured deliveries only. Prints one JSON line.
import { createReceiver, eventKey, memoryPaymentBook } from 'pixhook';
import { bookSecret as secret, paidDelivery } from './lib/book-deliveries.js';

const which = process.argv[2] ?? 'none';
const total = Number(process.argv[3] ?? 200_000);
const warm = 30_000;
const book = which === 'none' ? undefined : memoryPaymentBook();
let n = 0;
const receiver = createReceiver({ secret, dedupeKey: (event) => `${eventKey(event)}#${n}`, ...(book && { book }) }).onAny(() => {});
const requests = Array.from({ length: warm + total }, (_, i) => paidDelivery(i));

async function startProfile() {
  const { Session } = await import('node:inspector/promises');
  const { writeFile } = await import('node:fs/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(process.env.BOOK_PROFILE, JSON.stringify(profile));
    session.disconnect();
  };
}
const turn = () => new Promise((resolve) => setImmediate(resolve));

async function run(count) {
  for (let i = 0; i < count; i += 100) {
    for (let j = 0; j < 100; j++) {
      const result = await receiver.receive(requests[n++]);
      if (result.status !== 200 || result.reason !== undefined) throw new Error(`pixhook answered ${result.status} ${result.reason}`);
    }
    await turn();
  }
}
await run(warm);
// BOOK_PROFILE=<file.cpuprofile>: a CPU profile of the measured deliveries only (not the preparation).
const profile = process.env.BOOK_PROFILE && (await startProfile());
const before = process.cpuUsage();
await run(total);
const used = process.cpuUsage(before);
if (profile) await profile();
await receiver.drain();
console.log(JSON.stringify({ book: which, cpu_us_per_delivery: Math.round(((used.user + used.system) / total) * 100) / 100 }));
