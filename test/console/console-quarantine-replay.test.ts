import { describe, expect, it } from 'vitest';
import { createConsole } from '../../src/console/index.js';
import { createReceiver, memoryJournal, memoryQuarantine } from '../../src/index.js';
import { buildPayload } from '../../src/testing/index.js';

// Issue 31: the console's quarantine Replay kept the body after it succeeded (`pixhook worker quarantine replay` removes it).
const token = 'console-quarantine-token-0123456789';

async function setup() {
  const journal = memoryJournal();
  const quarantine = memoryQuarantine();
  const receiver = createReceiver({ secret: 'whsec_quarantine_replay', journal, quarantine });
  let runs = 0;
  receiver.on('transaction_paid', () => void runs++);
  const app = createConsole({ journal, quarantine, receiver, token });
  const put = (text: string) =>
    quarantine.put({
      reason: 'payload_invalid',
      message: 'an older reader',
      bytes: new TextEncoder().encode(text),
      headers: {},
      receivedAt: new Date().toISOString(),
    });
  const replay = async (id: string) => {
    const response = await app.fetch(
      new Request(`http://127.0.0.1/actions/quarantine/${id}/replay`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      }),
    );
    return (await response.json()) as { ok: boolean; message: string };
  };
  return { quarantine, put, replay, runs: () => runs };
}

describe("the console's quarantine Replay", () => {
  it('removes the body once the replay ran the handlers', async () => {
    const { quarantine, put, replay, runs } = await setup();
    const id = await put(JSON.stringify(buildPayload('transaction_paid', { id: 'txn_q_removed', amountInCents: 100 })));
    const answer = await replay(id);
    expect(answer).toMatchObject({ ok: true });
    expect(answer.message).toContain('Removed from the quarantine');
    expect(runs()).toBe(1);
    expect(await quarantine.show(id)).toBeUndefined();
    expect((await replay(id)).message).toContain('Not in the quarantine');
  });

  it('removes a body whose event was already handled (a duplicate)', async () => {
    const { quarantine, put, replay, runs } = await setup();
    const body = JSON.stringify(buildPayload('transaction_paid', { id: 'txn_q_dup', amountInCents: 100 }));
    expect((await replay(await put(body))).ok).toBe(true);
    const again = await put(body);
    expect((await replay(again)).message).toContain('duplicate');
    expect(runs()).toBe(1);
    expect(await quarantine.show(again)).toBeUndefined();
  });

  it('keeps a body that still cannot be read', async () => {
    const { quarantine, put, replay } = await setup();
    const id = await put('{"event":"transaction_paid","data":{}}');
    expect((await replay(id)).ok).toBe(false);
    expect(await quarantine.show(id)).toBeDefined();
  });
});
