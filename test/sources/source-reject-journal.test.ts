// Every receiver is a source on one pipeline (issue 38 §1): a failure an adapter finds before the core reads the
// body (413 on a declared length, an unreadable stream) is journaled with the request it names, for a PSP's
// receiver as for the gateway's. Before the gateway moved onto receiverOver, a source's receiver journaled no
// such refusal at all.
import { describe, expect, it } from 'vitest';
import { internalsOf } from '../../src/adapter-kit/index.js';
import { createReceiver, memoryJournal, type DeliveryJournal, type JournalEntry } from '../../src/index.js';
import { createPspReceiver } from '../../src/psp/index.js';

/** What the journal holds once the receiver drained (its writes included). */
function entries(journal: DeliveryJournal): Promise<JournalEntry[]> {
  return journal.list();
}

describe("an adapter's refusal before the body is journaled by every source's receiver", () => {
  it('a PSP receiver (Asaas) keeps the refusal, its address and the profile; never the token', async () => {
    const journal = memoryJournal();
    const receiver = createPspReceiver({ psp: 'asaas', token: 'asaas-webhook-token-of-the-test', journal });
    const result = internalsOf(receiver).reject('body_too_large', 'declared 2 MiB', {
      method: 'POST',
      headers: { 'asaas-access-token': 'asaas-webhook-token-of-the-test' },
      remoteAddress: '203.0.113.9',
    });
    expect([result.status, result.reason]).toEqual([413, 'body_too_large']);
    await receiver.drain();
    const [entry, ...more] = await entries(journal);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ status: 413, reason: 'body_too_large', verified: false, remoteAddress: '203.0.113.9', profile: 'asaas' });
    expect(JSON.stringify(entry)).not.toContain('asaas-webhook-token-of-the-test');
    await receiver.close();
  });

  it('the gateway receiver keeps it with the signature masked, as before', async () => {
    const journal = memoryJournal();
    const receiver = createReceiver({ secret: 'whsec_reject_journal', journal });
    const signature = `sha256=${'ab'.repeat(32)}`;
    internalsOf(receiver).reject('body_unreadable', 'socket closed', { method: 'POST', headers: { 'x-signature': signature } });
    await receiver.drain();
    const [entry] = await entries(journal);
    expect(entry).toMatchObject({ status: 400, reason: 'body_unreadable', verified: false, signature: 'sha256=abab…' });
    expect(entry!.profile).toBeUndefined();
    await receiver.close();
  });
});
