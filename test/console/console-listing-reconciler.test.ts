// The console's reconciler page for the API Pix listing reconciler: its lag (the cursor's age), against the emulator.
import { afterEach, describe, expect, it } from 'vitest';
import { createConsole } from '../../src/console/index.js';
import type { ApiPixEmulator } from '../../src/emulator/index.js';
import { createProcessing, memoryDedupeStore, memoryJournal } from '../../src/index.js';
import { createListingReconciler, memoryCursorStore } from '../../src/reconcile/index.js';
import { clientFor, startApiPix } from '../api-pix-client/emulator-setup.js';

const token = 'listing-console-token-0123456789abcdef';
const hourMs = 3_600_000;
let emulator: ApiPixEmulator | undefined;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await emulator?.close();
  emulator = undefined;
});

async function page(app: ReturnType<typeof createConsole>, path = '/reconciler'): Promise<string> {
  const response = await app.fetch(new Request(`http://127.0.0.1${path}`, { headers: { authorization: `Bearer ${token}` } }));
  expect(response.status).toBe(200);
  return response.text();
}

const figure = (html: string, name: string) => new RegExp(`data-figure="${name}">([^<]*)<`).exec(html)?.[1];

describe("the console's reconciler page with the listing reconciler", () => {
  it('shows the lag before the first run, after each run, and Run now walks on', async () => {
    emulator = await startApiPix();
    const client = clientFor(emulator);
    cleanups.push(() => client.close());
    // A fixed clock: the lag is exact, not a timing.
    const now = Date.now();
    const reconciler = createListingReconciler({
      client,
      processing: createProcessing({ store: memoryDedupeStore() }),
      cursorStore: memoryCursorStore(),
      from: now - 5 * hourMs,
      windowMs: hourMs,
      maxWindowsPerRun: 2,
      settleMs: 0,
      now: () => now,
    });
    const app = createConsole({ journal: memoryJournal(), reconciler, token });

    const before = await page(app);
    // Before any run: the cursor it will list from (`from`) and its age (issue 37: it was "not started").
    expect(figure(before, 'lag')).toBe('5 h 0 min');
    expect(figure(before, 'cursor')).not.toBe('—');

    await reconciler.runOnce();
    const after = await page(app);
    expect(figure(after, 'lag')).toBe('3 h 0 min');
    expect(figure(after, 'cursor')).toBe(new Date(now - 3 * hourMs).toISOString().replace('T', ' ').slice(0, 19));
    expect(figure(after, 'runs')).toBe('1');

    const run = await app.fetch(
      new Request('http://127.0.0.1/actions/reconciler/run', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
      }),
    );
    expect(((await run.json()) as { message: string }).message).toMatch(/^Listed 0, recovered 0, failed 0\./);
    expect(figure(await page(app), 'lag')).toBe('1 h 0 min');
    const json = JSON.parse(await page(app, '/api/reconciler')) as { metrics: { lagMs: number; cursor: number } };
    expect(json.metrics).toMatchObject({ lagMs: hourMs, cursor: now - hourMs });
  });
});
