// End to end against the emulator: a merchant's Express receiver, a registered webhook, a charge
// paid through the emulator, exactly one `transaction_paid` handled, then the transaction read back.
// Run after `npm run build`: node examples/emulator-e2e/run.js   (PIXHOOK_VARIANT=a|b|short)
import express from 'express';
import { createReceiver } from 'pixhook';
import { createClient } from 'pixhook/client';
import { startEmulator } from 'pixhook/emulator';
import { createExpressMiddleware } from 'pixhook/express';

const variant = process.env.PIXHOOK_VARIANT ?? 'a';
const amountInCents = 2590;

// 1. The gateway, locally.
const emulator = await startEmulator({ variant, retry: { backoff: { delayMs: 100 } } });

// 2. The merchant's app: verifies, dedupes and dispatches each delivery.
const receiver = createReceiver({ secret: emulator.credentials.webhookSecret });
const handled = [];
receiver.on('transaction_paid', (event) => {
  handled.push({ id: event.transaction.id, amountInCents: event.transaction.amountInCents, scope: event.scope ?? null });
});
const app = express();
app.post('/webhooks/pix', createExpressMiddleware(receiver));
const server = await new Promise((resolve) => {
  const s = app.listen(0, '127.0.0.1', () => resolve(s));
});
const receiverUrl = `http://127.0.0.1:${server.address().port}/webhooks/pix`;

try {
  // 3. Register the receiver and create a charge that also names it as its postbackUrl, so the
  //    gateway sends `transaction_paid` twice (registered webhook + postback): the receiver must handle one.
  const client = createClient({ ...emulator.credentials, baseUrl: emulator.url, variant: variant === 'a' ? 'a' : 'b' });
  const webhook = await client.webhooks.register({ url: receiverUrl, events: ['transaction_paid'] });
  const charge = await client.createCharge({
    amountInCents,
    description: 'Pedido #1001',
    postbackUrl: receiverUrl,
    customer: { name: 'Ana Souza', email: 'ana@example.com.br', documentType: 'cpf', document: '52998224725', phone: '11999998888' },
  });

  // 4. The payer pays (the emulator's stand-in for a bank app).
  const paid = await fetch(`${emulator.url}/_emulator/transactions/${charge.id}/pay`, { method: 'POST' });
  if (!paid.ok) throw new Error(`pay answered ${paid.status}`);
  await emulator.idle();

  // 5. The API is the truth for money: read the transaction back.
  const transaction = await client.waitForTransactionStatus(charge.id, { status: 'paid', intervalMs: 200, timeoutMs: 10_000 });

  const paidDeliveries = emulator.deliveries().filter((d) => d.event === 'transaction_paid');
  const summary = {
    variant,
    webhookId: webhook.id,
    chargeId: charge.id,
    paidDeliveries: paidDeliveries.map((d) => ({ scope: d.scope, delivered: d.delivered })),
    handled,
    transactionStatus: transaction.status,
    transactionAmountInCents: transaction.amountInCents,
  };
  console.log(JSON.stringify(summary));
  const ok =
    handled.length === 1 &&
    handled[0].id === charge.id &&
    handled[0].amountInCents === amountInCents &&
    transaction.status === 'paid' &&
    paidDeliveries.every((d) => d.delivered);
  process.exitCode = ok ? 0 : 1;
} finally {
  server.close();
  await receiver.drain();
  await emulator.close();
}
