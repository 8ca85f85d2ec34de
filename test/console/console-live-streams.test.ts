import { describe, expect, it } from 'vitest';
import { createConsole } from '../../src/console/index.js';
import { maxLiveStreams } from '../../src/console/live-events.js';
import { memoryJournal, type DeliveryJournal, type JournalEntry } from '../../src/index.js';
import { entry } from '../journal/journal-entries.js';

// Issue 31: with 200 live streams open, each journal write was serialized once per stream on the
// receiver's event loop, and there was no cap.
function countingJournal(): { journal: DeliveryJournal; listening: () => number } {
  const inner = memoryJournal();
  let listening = 0;
  const journal: DeliveryJournal = {
    ...inner,
    add: (e) => inner.add(e),
    subscribe(listener) {
      listening++;
      const stop = inner.subscribe(listener);
      return () => {
        listening--;
        stop();
      };
    },
  };
  return { journal, listening: () => listening };
}

const open = (app: ReturnType<typeof createConsole>, query = '') => app.fetch(new Request(`http://127.0.0.1/live${query}`));

async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, text: string): Promise<string> {
  let got = '';
  while (!got.includes(text)) got += new TextDecoder().decode((await reader.read()).value);
  return got;
}

describe('live streams', () => {
  it('share one journal subscription, and serialize each write once whatever the number of streams', async () => {
    const { journal, listening } = countingJournal();
    const app = createConsole({ journal });
    const readers = [];
    for (let i = 0; i < 10; i++) readers.push((await open(app, i % 2 === 0 ? '' : '?event=transaction_paid')).body!.getReader());
    const other = (await open(app, '?event=transfer_completed')).body!.getReader();
    expect(listening()).toBe(1);
    let serialized = 0;
    const counted = { toJSON: () => (serialized++, 'w') } as unknown as string;
    await journal.add(entry({ resourceId: 'txn_live_once', warnings: [counted] }));
    for (const reader of readers) expect(await readUntil(reader, 'txn_live_once')).toContain('"warnings":["w"]');
    expect(serialized).toBe(1);
    for (const reader of [...readers, other]) await reader.cancel();
    expect(listening()).toBe(0);
  });

  it(`answers 503 past ${maxLiveStreams} open streams, and opens again once one closes`, async () => {
    const app = createConsole({ journal: memoryJournal() });
    const streams = [];
    for (let i = 0; i < maxLiveStreams; i++) {
      const response = await open(app);
      expect(response.status).toBe(200);
      streams.push(response.body!.getReader());
    }
    const refused = await open(app);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('30');
    await streams.pop()!.cancel();
    const again = await open(app);
    expect(again.status).toBe(200);
    await again.body!.cancel();
    for (const reader of streams) await reader.cancel();
  });

  it('still filters per stream', async () => {
    const journal = memoryJournal();
    const app = createConsole({ journal });
    const paid = (await open(app, '?event=transaction_paid')).body!.getReader();
    await journal.add(entry({ event: 'transfer_completed', resourceId: 'tr_not_here' }) as JournalEntry);
    await journal.add(entry({ event: 'transaction_paid', resourceId: 'txn_here' }));
    const got = await readUntil(paid, 'txn_here');
    expect(got).not.toContain('tr_not_here');
    await paid.cancel();
  });
});
