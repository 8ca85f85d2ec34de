// Issue 22: receive() with a memory payment book against the same receiver without one, side by side in
// one process (alternating rounds). Target (issue 36): with a book ≤ 1.2× without.
// Run: `npm run build && node bench/book-memory.js [--quick]`.
//
// Each round runs one slice of deliveries per subject (the order swapped every round) and reads both the
// wall clock and the process's CPU time (`process.cpuUsage`: the garbage collector's threads included) around
// it; the ratios are the medians of the per-round ratios. On a machine shared with other work the wall clock
// counts the time other processes held the cores, so the CPU figure is the one to read there.
import { createReceiver, eventKey, memoryPaymentBook } from 'pixhook';
import { bookSecret as secret, paidDelivery } from './lib/book-deliveries.js';
import { spread, median, quick, round, showRatio } from './lib/stats.js';

const { rounds, slice, warmup } = quick ? { rounds: 5, slice: 400, warmup: 2_000 } : { rounds: 21, slice: 4_000, warmup: 20_000 };
// Many charges, each paid once (a second payment would be the book's duplicate): the book keeps a resource per
// charge and, past its 100 000, drops the oldest, as a long-running receiver's does.
const charges = warmup + rounds * slice;
const requests = Array.from({ length: charges }, (_, i) => paidDelivery(i));

/** A receiver whose every delivery reaches the claim (a counter in the key) and pays the next charge. */
function subject(options) {
  let n = 0;
  const receiver = createReceiver({ secret, dedupeKey: (event) => `${eventKey(event)}#${n}`, ...options }).onAny(() => {});
  return async (count) => {
    for (let end = n + count; n < end;) {
      const result = await receiver.receive(requests[n++]);
      if (result.status !== 200 || result.reason !== undefined) throw new Error(`answered ${result.status} ${result.reason}`);
    }
  };
}

/** Runs `count` deliveries of `run`: ns per delivery, wall and process CPU. */
async function timed(run, count) {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await run(count);
  const wall = Number(process.hrtime.bigint() - start) / count;
  const used = process.cpuUsage(cpu);
  return { wall, cpu: ((used.user + used.system) * 1_000) / count };
}

const book = memoryPaymentBook();
const subjects = { bare: subject({}), book: subject({ book }) };
for (const run of Object.values(subjects)) await run(warmup);
const samples = { bare: [], book: [] };
for (let r = 0; r < rounds; r++) {
  for (const name of r % 2 === 0 ? ['bare', 'book'] : ['book', 'bare']) samples[name].push(await timed(subjects[name], slice));
}
const ratios = (clock) => spread(samples.book.map((s, i) => s[clock] / samples.bare[i][clock]));
const wall = ratios('wall');
const cpu = ratios('cpu');
const ns = (name, clock) => round(median(samples[name].map((s) => s[clock])), 0);
const out = {
  rounds,
  slice,
  bare_ns: ns('bare', 'wall'),
  book_ns: ns('book', 'wall'),
  book_vs_bare: wall,
  bare_cpu_ns: ns('bare', 'cpu'),
  book_cpu_ns: ns('book', 'cpu'),
  cpu_book_vs_bare: cpu,
  ok: wall.median <= 1.2,
  cpu_ok: cpu.median <= 1.2,
  resources: book.size,
};
console.error(
  `receive() with a memory book vs without (target ≤ 1.2×): wall ${showRatio(wall)}, ${out.bare_ns} vs ${out.book_ns} ns; ` +
    `process CPU ${showRatio(cpu)}, ${out.bare_cpu_ns} vs ${out.book_cpu_ns} ns per delivery (${rounds} rounds of ${slice})`,
);
console.log(JSON.stringify(out));
