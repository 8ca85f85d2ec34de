import { describe, expect, it } from 'vitest';
import { createConsole } from '../../src/console/index.js';
import { createReceiver, memoryJournal } from '../../src/index.js';
import { buildPayload } from '../../src/testing/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// Issue 31: handler error messages reached the delivery page, the API and the live stream unredacted.
const secret = 'whsec_console_redaction_secret';
const leaks = ['hunter2', 'abc123', 'sk_live_zzz', 'whsec_leaked'];

describe('handler errors are redacted before the journal', () => {
  it('the delivery page, /api/deliveries/:id and the live stream show no credential', async () => {
    const journal = memoryJournal();
    const receiver = createReceiver({ secret, journal }).on('transaction_paid', () => {
      throw new Error(
        'could not reach postgres://app:hunter2@db.internal:5432/shop (https://api.example/pay?api_key=abc123) token=sk_live_zzz whsec_leaked',
      );
    });
    const console_ = createConsole({ journal });
    const live = await console_.fetch(new Request('http://127.0.0.1/live'));
    const reader = live.body!.getReader();
    await reader.read(); // retry line

    const body = bytesOf(buildPayload('transaction_paid', { id: 'txn_redacted_01', amountInCents: 100 }));
    const answer = await receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body });
    expect(answer.status).toBe(500);
    await receiver.drain();
    const [entry] = await journal.list({ resource: 'txn_redacted_01' });
    expect(entry!.attempts[0]!.error).toContain('postgres://app:***@db.internal');
    expect(entry!.attempts[0]!.error).toContain('api_key=***');

    let streamed = '';
    while (!streamed.includes('txn_redacted_01')) streamed += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const api = await (await console_.fetch(new Request(`http://127.0.0.1/api/deliveries/${entry!.id}`))).text();
    const page = await (await console_.fetch(new Request(`http://127.0.0.1/deliveries/${entry!.id}`))).text();
    expect(page).toContain('app:***@db.internal');
    for (const text of [streamed, api, page]) for (const leak of leaks) expect(text).not.toContain(leak);
  });
});
