// The sandbox page's payment-fault buttons (`pixhook dev --profile <psp>`): one form per fault on each charge,
// its action routed to the sandbox's playPaymentFault; a name the sandbox does not offer is 404, unplayed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createConsole, type ConsoleSandbox } from '../../src/console/index.js';
import { createReceiver, memoryJournal } from '../../src/index.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

function fakeSandbox(played: string[], withFaults: boolean): ConsoleSandbox {
  const line = async () => 'ok';
  return {
    charges: async () => [
      { id: 'ch_1', status: 'pending', amountInCents: 700, emv: '000201', qrCode: '', createdAt: '2026-11-28T00:00:00Z' },
    ],
    deliveries: async () => [],
    faults: async () => [],
    createCharge: line,
    pay: line,
    expire: line,
    refund: line,
    dispute: line,
    injectFault: line,
    clearFaults: line,
    ...(withFaults && {
      paymentFaults: [
        { name: 'duplicate', label: 'Pay, webhook sent twice' },
        { name: 'late-pending', label: 'Pay, then a late pending' },
      ],
      playPaymentFault: async (id: string, name: string) => (played.push(`${id} ${name}`), `played ${name}`),
    }),
  };
}

async function start(sandbox: ConsoleSandbox): Promise<string> {
  const receiver = createReceiver({ secret: 'whsec_sandbox_faults_0123456789' });
  const consoleApp = createConsole({ journal: memoryJournal({ max: 10 }), receiver, sandbox });
  server = createServer(consoleApp.node);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}

/** POSTs the action as the page's form does, then reads the page it is sent back to: the notice it shows. */
async function post(origin: string, path: string): Promise<{ status: number; notice: string }> {
  const page = await fetch(origin);
  const cookie = page.headers.get('set-cookie')?.split(';')[0];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  const answer = await fetch(new URL(path, origin), {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin,
      'sec-fetch-site': 'same-origin',
      ...(cookie !== undefined && { cookie }),
    },
    body: new URLSearchParams({ _csrf: csrf ?? '' }),
  });
  const back = await fetch(new URL(answer.headers.get('location') ?? '/', origin), { headers: cookie === undefined ? {} : { cookie } });
  const notice = /class="notice[^"]*"[^>]*>([^<]*)</.exec(await back.text())?.[1] ?? '';
  return { status: answer.status, notice };
}

describe('sandbox payment faults', () => {
  it('renders one button per offered fault on each charge and plays the one pressed; a name not offered is refused, unplayed', async () => {
    const played: string[] = [];
    const origin = await start(fakeSandbox(played, true));
    const page = await (await fetch(origin)).text();
    expect(page).toContain('action="/actions/sandbox/charges/ch_1/fault/duplicate"');
    expect(page).toContain('Pay, then a late pending');
    expect(await post(origin, '/actions/sandbox/charges/ch_1/fault/late-pending')).toEqual({ status: 303, notice: 'played late-pending' });
    expect(played).toEqual(['ch_1 late-pending']);
    expect((await post(origin, '/actions/sandbox/charges/ch_1/fault/refund-everything')).notice).toMatch(/no such payment fault/);
    expect(played).toEqual(['ch_1 late-pending']);
  });

  it('offers none where the sandbox has none (the gateway and API Pix profiles)', async () => {
    const origin = await start(fakeSandbox([], false));
    expect(await (await fetch(origin)).text()).not.toContain('/fault/');
    expect((await post(origin, '/actions/sandbox/charges/ch_1/fault/duplicate')).notice).toMatch(/no such sandbox action/);
  });
});
