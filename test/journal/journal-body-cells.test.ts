// The memory journal keeps a verified body as bytes in its slot's cell when it fits: every body must
// come back exactly as it was given, whatever its size or characters, after the ring wrapped.
import { describe, expect, it } from 'vitest';
import { memoryJournal } from '../../src/index.js';
import { cellBytes } from '../../src/journal/body-cells.js';
import { entry } from './journal-entries.js';

const bodies = {
  ascii: '{"event":"transaction.paid","amount":1000}',
  accents: '{"pagador":"João Conceição — ação","valor":"1.00"}',
  emoji: '{"note":"pago 💸 ✓"}',
  bom: '\uFEFF{"x":1}',
  // Not well-formed UTF-16: cannot survive UTF-8, so it stays a string.
  loneSurrogate: '{"x":"\uD800"}',
  atCell: `{"p":"${'a'.repeat(cellBytes - 8)}"}`,
  // Fits in characters, not in UTF-8 bytes.
  multibyteOverCell: `{"p":"${'é'.repeat(cellBytes / 2)}"}`,
  large: `{"p":"${'b'.repeat(cellBytes * 3)}"}`,
  empty: '',
};

describe('memoryJournal bodies kept as bytes', () => {
  it('gives every body back exactly, from get, list and a subscriber', async () => {
    const journal = memoryJournal({ max: 20 });
    const heard: string[] = [];
    journal.subscribe((e) => heard.push(e.body ?? '(none)'));
    const added = Object.values(bodies).map((body) => entry({ body }));
    for (const e of added) await journal.add(e);
    expect(Buffer.byteLength(bodies.atCell)).toBe(cellBytes);
    for (const e of added) expect((await journal.get(e.id))?.body).toBe(e.body);
    expect((await journal.list()).map((e) => e.body).reverse()).toEqual(Object.values(bodies));
    expect(heard).toEqual(Object.values(bodies));
  });

  it('does not change the entry it was given, and a reader changing its copy changes nothing', async () => {
    const journal = memoryJournal();
    const given = entry({ body: bodies.accents });
    await journal.add(given);
    expect(given.body).toBe(bodies.accents);
    const copy = (await journal.get(given.id))!;
    copy.body = 'changed';
    expect((await journal.get(given.id))?.body).toBe(bodies.accents);
  });

  it('keeps each slot its own body after the ring wrapped over several chunks', async () => {
    const max = 300;
    const journal = memoryJournal({ max });
    const added = Array.from({ length: 1000 }, (_, i) =>
      entry({ body: i % 7 === 0 ? `{"i":${i},"pad":"${'z'.repeat(cellBytes)}"}` : i % 5 === 0 ? undefined : `{"i":${i}}` }),
    );
    for (const e of added) await journal.add(e);
    const kept = added.slice(-max);
    const listed = await journal.list({ limit: 1000 });
    expect(listed.map((e) => e.id)).toEqual(kept.map((e) => e.id).reverse());
    expect(listed.map((e) => e.body)).toEqual(kept.map((e) => e.body).reverse());
  });

  it('replaces an entry added again with the same id, body and all', async () => {
    const journal = memoryJournal({ max: 2 });
    const first = entry({ body: bodies.emoji });
    await journal.add(first);
    await journal.add({ ...first, body: bodies.large, status: 503 });
    expect(await journal.get(first.id)).toMatchObject({ body: bodies.large, status: 503 });
    await journal.add({ ...first, body: undefined });
    expect((await journal.get(first.id))?.body).toBeUndefined();
    await journal.add({ ...first, body: bodies.ascii });
    expect((await journal.get(first.id))?.body).toBe(bodies.ascii);
    expect(journal.size).toBe(1);
  });

  it('keeps attempts appended to an entry whose body is in its cell', async () => {
    const journal = memoryJournal();
    const e = entry({ body: bodies.ascii });
    await journal.add(e);
    await journal.addAttempt(e.id, { attempt: 1, at: e.at, durationMs: 1, outcome: 'ok' });
    expect(await journal.get(e.id)).toMatchObject({ body: bodies.ascii, attempts: [{ attempt: 1, outcome: 'ok' }] });
  });
});
