// The console's delivery page shows a standard API Pix call's items: the count, each item's key and endToEndId.
import { describe, expect, it } from 'vitest';
import { deliveryPage } from '../../src/console/pages/delivery-page.js';
import { createApiPixReceiver } from '../../src/api-pix/index.js';
import { memoryJournal } from '../../src/index.js';
import { apiPixBody, apiPixPix } from '../../src/testing/index.js';
import { call, urlSecret } from './fixtures.js';

const context = { base: '/console', csrf: 'x', has: { sandbox: false, book: false, quarantine: false, queue: false, reconciler: false } };

describe('the console shows API Pix calls', () => {
  it('lists each item of a journaled call, escaped', async () => {
    const journal = memoryJournal();
    const receiver = createApiPixReceiver({ auth: { urlSecret: { secret: urlSecret } }, journal }).onAny(() => {});
    const first = apiPixPix({ key: 'loja@example.com' });
    const second = apiPixPix({ key: '<script>alert(1)</script>' });
    await receiver.receive(call(apiPixBody([first, second])));
    await receiver.drain();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const [entry] = await journal.list();
    const page = deliveryPage(context, entry!, false);
    expect(page).toContain('Items (2)');
    expect(page).toContain(first.endToEndId);
    expect(page).toContain(second.endToEndId);
    expect(page).toContain('loja@example.com');
    expect(page).toContain(`pix_received:${first.endToEndId}`);
    expect(page).not.toContain('<script>alert(1)</script>');
    expect(page).not.toContain(urlSecret);
  });
});
