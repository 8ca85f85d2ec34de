import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExpressMiddleware } from '../../adapters/express/index.js';
import { createReceiver, memoryPaymentBook, type PixEvent } from '../../src/index.js';
import { runCli, startCli, type RunningCli } from '../helpers/cli-process.js';

// Issue 37 §4: `pixhook trigger <scenario>` plays a whole scenario on a running `pixhook dev` and prints what
// the receiver answered. Here the receiver is a real Express app behind `pixhook dev --forward-to`: each line
// printed is the app's own answer (the app's book holds the second payment, so its answer says `held`).
const secret = 'whsec_trigger_test';
const consoleUrl = /^(http:\/\/127\.0\.0\.1:\d+\/)$/m;
const handled: PixEvent[] = [];
let app: Server;
let appUrl: string;
let dev: RunningCli;
let devUrl: string;

const trigger = (scenario: string, url = devUrl) => runCli(['trigger', scenario, '--dev', url], { env: { PIXHOOK_SECRET: undefined } });

beforeAll(async () => {
  const book = memoryPaymentBook();
  const receiver = createReceiver({ secret, book });
  // The app expects every charge it is told of, as a shop expects the ones it created.
  receiver.on('transaction_created', async (event) => {
    await book.expect({ id: event.transaction.id, amountInCents: event.transaction.amountInCents });
  });
  receiver.onAny((event) => void handled.push(event));
  const server = express();
  server.all('/webhooks/pix', createExpressMiddleware(receiver));
  app = server.listen(0, '127.0.0.1');
  await new Promise((resolve) => app.once('listening', resolve));
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/webhooks/pix`;
  dev = startCli(['dev', '--port', '0', '--secret', secret, '--forward-to', appUrl], { PIXHOOK_SECRET: undefined });
  devUrl = (await dev.waitFor(consoleUrl, 20_000))[1]!;
}, 30_000);
afterAll(async () => {
  await dev?.stop();
  await new Promise((resolve) => app?.close(resolve));
});

/** The charge the scenario created, from its first printed step. */
const chargeOf = (stdout: string) => /Created charge (txn_\w+)/.exec(stdout)?.[1];

describe('pixhook trigger against pixhook dev --forward-to an Express app', () => {
  it('payment: created and paid, each delivery with the app’s 200', async () => {
    const run = await trigger('payment');
    const id = chargeOf(run.stdout)!;
    expect(run.stdout).toContain(`--> transaction_created ${id} 1990\n<-- 200 handled`);
    expect(run.stdout).toContain(`--> transaction_paid ${id} 1990\n<-- 200 handled`);
    expect(run.stdout).toMatch(/2 deliveries, 0 not answered 2xx/);
    expect(run.code).toBe(0);
    // The app really ran its handlers for them.
    expect(handled.filter((e) => e.kind === 'transaction' && e.transaction.id === id).map((e) => e.name)).toEqual([
      'transaction_created',
      'transaction_paid',
    ]);
    // And `pixhook dev` printed the same pair in its own terminal.
    await expect.poll(() => dev.stdout()).toContain(`--> transaction_paid ${id} 1990\n<-- 200 handled`);
  });

  it('wrong-amount: the payment of 1000 on a charge of 1990, held by the app’s book', async () => {
    const run = await trigger('wrong-amount');
    const id = chargeOf(run.stdout)!;
    expect(run.stdout).toContain(`--> transaction_paid ${id} 1000\n<-- 200 held`);
    expect(run.code).toBe(0);
  });

  it('second-payment: two payments of one charge, the second held', async () => {
    const run = await trigger('second-payment');
    const id = chargeOf(run.stdout)!;
    const answers = [...run.stdout.matchAll(new RegExp(`--> transaction_paid ${id} 1990\\n<-- (200 \\w+)`, 'g'))].map((m) => m[1]);
    expect(answers).toEqual(['200 handled', '200 held']);
  });

  it('refund, dispute and expired: the event each one ends with, answered by the app', async () => {
    const refund = await trigger('refund');
    expect(refund.stdout).toContain(`--> transaction_refunded ${chargeOf(refund.stdout)!} 1990\n<-- 200 handled`);
    const dispute = await trigger('dispute');
    expect(dispute.stdout).toContain(`--> transaction_infraction ${chargeOf(dispute.stdout)!} 1990\n<-- 200 handled`);
    const expired = await trigger('expired');
    expect(expired.stdout).toContain(`--> transaction_updated ${chargeOf(expired.stdout)!} 1990\n<-- 200 handled`);
    expect([refund.code, dispute.code, expired.code]).toEqual([0, 0, 0]);
  });

  it('an api-pix scenario on the gateway sandbox is refused with the way out (exit 2)', async () => {
    const run = await trigger('api-pix-payment');
    expect(run.stderr).toMatch(/api-pix-payment plays on pixhook dev --profile api-pix/);
    expect(run.code).toBe(2);
  });

  it('exit 3 when no pixhook dev answers, 2 for an unknown scenario', async () => {
    const { freePort } = await import('../helpers/free-port.js');
    const nobody = await trigger('payment', `http://127.0.0.1:${await freePort()}/`);
    expect(nobody.stderr).toMatch(/no pixhook dev answers at/);
    expect(nobody.code).toBe(3);
    const unknown = await trigger('chargeback');
    expect(unknown.stderr).toMatch(/unknown scenario "chargeback"; one of: payment, wrong-amount/);
    expect(unknown.code).toBe(2);
  });
});

describe('pixhook trigger on pixhook dev --profile api-pix', () => {
  it('api-pix-payment and api-pix-refund: the calls the PSP made and the receiver’s answers', async () => {
    const apiPix = startCli(['dev', '--profile', 'api-pix', '--port', '0'], { PIXHOOK_SECRET: undefined });
    try {
      const url = (await apiPix.waitFor(consoleUrl, 30_000))[1]!;
      const payment = await trigger('api-pix-payment', url);
      expect(payment.stdout).toMatch(/--> pix_received \w+ 1990\n<-- 200 handled/);
      expect(payment.code).toBe(0);
      const refund = await trigger('api-pix-refund', url);
      expect(refund.stdout).toMatch(/--> pix_refund_updated \w+ 1990\n<-- 200/);
      expect(refund.code).toBe(0);
      // Refused: a gateway scenario here.
      expect((await trigger('payment', url)).code).toBe(2);
    } finally {
      await apiPix.stop();
    }
  }, 60_000);
});
