// Issue 36 §4: a journal entry records which reader it needs; a replayed API Pix call runs its unfinished items
// through the door, and its finished items answer `duplicate` (before: 400 payload_invalid, the gateway's reader).
import { describe, expect, it } from 'vitest';
import { createApiPixReceiver } from '../../src/api-pix/index.js';
import { bulkReplay } from '../../src/console/bulk-replay.js';
import { replayBody } from '../../src/console/replay-body.js';
import { createProcessing, memoryJournal } from '../../src/index.js';
import { apiPixBody, apiPixPix } from '../../src/testing/index.js';
import { call, urlSecret } from '../api-pix/fixtures.js';

const auth = { urlSecret: { secret: urlSecret } };

function setup() {
  const journal = memoryJournal();
  const ran: string[] = [];
  let failing = true;
  const processing = createProcessing({ journal }).on('pix_received', (event) => {
    if (failing && event.pix.endToEndId === second.endToEndId) throw new Error('the ledger is down');
    ran.push(event.pix.endToEndId);
  });
  const receiver = createApiPixReceiver({ auth, processing });
  const first = apiPixPix({ amountInCents: 1000 });
  const second = apiPixPix({ amountInCents: 2000 });
  return { journal, ran, processing, receiver, first, second, heal: () => void (failing = false) };
}

describe('replaying a journaled API Pix call', () => {
  it('the entry names its reader; a bulk replay runs the unfinished item and answers the finished one duplicate', async () => {
    const { journal, ran, processing, receiver, first, second, heal } = setup();
    const since = new Date(Date.now() - 1000).toISOString();
    expect((await receiver.receive(call(apiPixBody([first, second])))).status).toBe(500);
    await receiver.drain();
    const [entry] = await journal.list({ limit: 10 });
    expect(entry).toMatchObject({ profile: 'api-pix', status: 500, reason: 'handler_failed' });
    expect(ran).toEqual([first.endToEndId]);

    heal();
    const result = await bulkReplay({ journal, processing, filter: { since }, dryRun: false });
    expect(result).toMatchObject({ matched: 1, failed: 0 });
    expect(ran).toEqual([first.endToEndId, second.endToEndId]);
    const replay = (await journal.list({ limit: 10 })).find((e) => e.replayOf === entry!.id)!;
    expect(replay).toMatchObject({ status: 200, profile: 'api-pix', channel: 'replay' });
    expect(replay.items?.map((item) => [item.endToEndId, item.reason])).toEqual([
      [first.endToEndId, 'duplicate'],
      [second.endToEndId, undefined],
    ]);

    // Once more: every item is finished.
    const again = await replayBody({
      bytes: new TextEncoder().encode(entry!.body),
      processing,
      journal,
      replayOf: entry!.id,
      entry: entry!,
    });
    expect(again.items?.map((item) => item.reason)).toEqual(['duplicate', 'duplicate']);
    expect(ran).toHaveLength(2);
    // Nothing ran: the replay as a whole is a duplicate, not handled (a mix with a run item stays handled, above).
    expect(replay.reason).toBeUndefined();
    expect(again).toMatchObject({ status: 200, reason: 'duplicate' });
    // The live call's answer is unchanged: a plain 200 per the API Pix contract, even when every item is done.
    const live = await receiver.receive(call(apiPixBody([first, second])));
    expect([live.status, live.reason]).toEqual([200, undefined]);
    expect(ran).toHaveLength(2);
  });

  it('an entry from before `profile` (with items) is still read as an API Pix call; a body that is not one is payload_invalid', async () => {
    const { journal, processing, first } = setup();
    const body = apiPixBody([first]);
    const old = await replayBody({ bytes: new TextEncoder().encode(body), processing, journal, replayOf: 'j1', entry: { items: [] } });
    // No journaled item: nothing was handed over by the call, so nothing runs.
    expect(old).toMatchObject({ status: 200, profile: 'api-pix', items: [] });
    const bad = await replayBody({
      bytes: new TextEncoder().encode('{"nope":1}'),
      processing,
      journal,
      replayOf: 'j2',
      entry: { profile: 'api-pix' },
    });
    expect(bad).toMatchObject({ status: 400, reason: 'payload_invalid' });
  });
});
