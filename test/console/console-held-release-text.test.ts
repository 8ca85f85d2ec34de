import { describe, expect, it } from 'vitest';
import { createConsole } from '../../src/console/index.js';
import { createReceiver, memoryJournal, memoryPaymentBook } from '../../src/index.js';
import { buildPayload } from '../../src/testing/index.js';
import { bytesOf, signBytes } from '../helpers/signing.js';

// Issue 37: the standalone console's Held page said "Release runs them once" but showed only Dismiss (it has no
// receiver, so no handlers to release with). The text now matches the buttons either way.
const token = 'held-console-token-0123456789abcdef';
const secret = 'whsec_held_text';

async function heldSetup() {
  const book = memoryPaymentBook();
  await book.expect({ id: 'ch_1', amountInCents: 1990 });
  const receiver = createReceiver({ secret, book });
  const body = bytesOf(buildPayload('transaction_paid', { id: 'ch_1', amountInCents: 100 }));
  const answer = await receiver.receive({ method: 'POST', headers: { 'x-signature': signBytes(body, secret) }, body });
  expect(answer.reason).toBe('held');
  return { book, receiver };
}

async function heldHtml(app: ReturnType<typeof createConsole>): Promise<string> {
  const response = await app.fetch(new Request('http://127.0.0.1/held', { headers: { authorization: `Bearer ${token}` } }));
  expect(response.status).toBe(200);
  return response.text();
}

describe("the console's Held page says what its buttons do", () => {
  it('without a receiver: Dismiss only, and the text says where a release is done', async () => {
    const { book } = await heldSetup();
    const page = await heldHtml(createConsole({ journal: memoryJournal(), book, token }));
    expect(page).not.toContain('Release runs them once');
    expect(page).not.toMatch(/>Release</);
    expect(page).toMatch(/>Dismiss</);
    expect(page).toContain('pixhook book release &lt;heldId&gt; --handlers ./handlers.js');
  });

  it('with a receiver: Release and Dismiss, and the text says Release runs them once', async () => {
    const { book, receiver } = await heldSetup();
    const page = await heldHtml(createConsole({ journal: memoryJournal(), book, receiver, token }));
    expect(page).toContain('Release runs them once');
    expect(page).toMatch(/>Release</);
    expect(page).toMatch(/>Dismiss</);
  });
});
