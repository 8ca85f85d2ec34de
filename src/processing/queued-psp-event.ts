import { transactionEventNames, type TransactionEventName } from '../events/event-names.js';
import type { JsonObject, PixEvent, Provider, PspTransactionEvent, Transaction } from '../events/event-types.js';
import { isJsonObject } from '../events/normalize-event.js';
import { chargeEvent } from '../sources/shared/charge-event.js';
import { PixhookError } from '../shared/pixhook-error.js';
import type { QueuedEvent } from './processing-options.js';

/** The providers whose events `pixhook/psp` reads (every one but the gateway and API Pix). */
const pspProviders: ReadonlySet<string> = new Set<Provider>(['mercado-pago', 'asaas', 'pagbank', 'woovi', 'pagarme']);

/** The PSP that sent `event`, or undefined for the gateway's and API Pix's (their jobs carry the verified body). */
export function pspOf(event: PixEvent): Provider | undefined {
  return pspProviders.has(event.provider) ? event.provider : undefined;
}

/**
 * A PSP's job body: the event as intake read it, after its confirmation (Mercado Pago's fetch, Pagar.me's and
 * Asaas's confirmation), as JSON. The worker rebuilds the event from it, so it needs neither the PSP's
 * credentials nor its API, and the book judges the state that was confirmed.
 */
export function pspJobBody(event: PixEvent): string {
  // `raw` is `payload` again: sent once, and the worker's event gets it back from `chargeEvent`.
  const { raw: _raw, ...sent } = event;
  return JSON.stringify(sent);
}

const names: ReadonlySet<string> = new Set(transactionEventNames);

/** A PSP's queued event, rebuilt from its job: the essentials checked as strictly as a gateway body's. */
export function readQueuedPsp(job: QueuedEvent, value: unknown): PspTransactionEvent {
  const provider = job.provider!;
  const fail = (what: string): never => {
    throw new PixhookError('payload_invalid', `queued job ${job.key} (${provider}): ${what}`);
  };
  if (!pspProviders.has(provider)) fail('not a provider pixhook/psp reads');
  if (!isJsonObject(value) || value['kind'] !== 'transaction' || value['provider'] !== provider) fail('not a PSP event of its provider');
  const event = value as JsonObject;
  const name = event['name'];
  if (typeof name !== 'string' || !names.has(name)) fail('no transaction event name');
  const transaction = isJsonObject(event['transaction']) ? event['transaction'] : fail('no transaction');
  const payload = isJsonObject(event['payload']) ? event['payload'] : fail('no payload');
  const id = nonEmpty(transaction['id']) ?? fail('no transaction id');
  const status = nonEmpty(transaction['status']) ?? fail('no status');
  const amountInCents = cents(transaction['amountInCents']);
  if (amountInCents === undefined || amountInCents < 0) fail('no amount in non-negative integer cents');
  const payer = isJsonObject(transaction['payer']) ? transaction['payer'] : undefined;
  return chargeEvent({
    provider: provider as Provider,
    name: name as TransactionEventName,
    status,
    id,
    amountInCents: amountInCents!,
    payload,
    source: job.source,
    deliveryId: nonEmpty(event['deliveryId']),
    timestamp: nonEmpty(event['timestamp']),
    endToEndId: nonEmpty(transaction['endToEndId']),
    payerName: nonEmpty(payer?.['name']),
    payerDocument: nonEmpty(payer?.['document']),
    netAmountInCents: cents(transaction['netAmountInCents']),
    feesInCents: cents(transaction['feesInCents']),
    refund: isJsonObject(transaction['refund']) ? (transaction['refund'] as Transaction['refund']) : undefined,
    infraction: isJsonObject(transaction['infraction']) ? (transaction['infraction'] as Transaction['infraction']) : undefined,
  });
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Integer cents (a net amount may be negative). */
function cents(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;
}
