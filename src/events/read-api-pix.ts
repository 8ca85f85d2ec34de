// Reads the Central Bank's standard API Pix bodies (bacen/pix-api openapi.yaml: Pix, Devolucao,
// RecNotification, CobRNotification) into typed events. Strict about what decides money (the
// endToEndId, txid, amount, time, a refund's id and status), lenient about the rest.
import type { ApiPixEventName } from './event-names.js';
import { bodyOf } from './event-body.js';
import type {
  ApiPixEvent,
  PixReceivedEvent,
  PixRefundStatus,
  PixRefundUpdate,
  PixRefundUpdatedEvent,
  PixValueComponents,
  ReceivedPix,
  RecurrenceUpdatedEvent,
  RecurringChargeUpdatedEvent,
} from './event-types.js';
import { apiPixCents } from './api-pix-amount.js';
import type { EventSource, EventWarning, JsonObject, PixRefund, Transaction } from './event-types.js';
import { isAbsent, isJsonObject, LenientReader } from './lenient-reader.js';
import { failure, type EssentialFailure } from './read-essentials.js';

export type ApiPixRead<E> = { ok: true; event: E } | ({ ok: false } & EssentialFailure);

const noWarnings: readonly EventWarning[] = Object.freeze([]);
// The spec says [a-zA-Z0-9]{32} (endToEndId) and {1,35} (txid, refund id); a little room for PSPs that
// pad, never room for a separator that could move a dedupe-key part.
const idPattern = /^[A-Za-z0-9]{1,64}$/;
const refundStatuses: Readonly<Record<string, PixRefundStatus>> = {
  EM_PROCESSAMENTO: 'processing',
  DEVOLVIDO: 'returned',
  NAO_REALIZADO: 'not_returned',
};
const componentNames = [
  ['original', 'original'],
  ['saque', 'withdrawal'],
  ['troco', 'change'],
  ['juros', 'interest'],
  ['multa', 'fine'],
  ['abatimento', 'rebate'],
  ['desconto', 'discount'],
] as const;

/** A readable Pix with what the reader left out; its `devolucoes` are read separately (`pixRefundEvents`). */
interface PixRead {
  pix: ReceivedPix;
  warnings: readonly EventWarning[];
}

function readPix(value: unknown, base: string): { ok: true; read: PixRead } | ({ ok: false } & EssentialFailure) {
  if (!isJsonObject(value)) return { ok: false, ...failure('', base, 'expected a Pix object', value) };
  const endToEndId = value['endToEndId'];
  if (typeof endToEndId !== 'string' || !idPattern.test(endToEndId))
    return { ok: false, ...failure(base, 'endToEndId', 'expected the endToEndId as 1–64 letters and digits', endToEndId) };
  const rawTxid = value['txid'];
  // A static QR code or a key transfer has no txid; some PSPs send it empty or null.
  const txid = isAbsent(rawTxid) || rawTxid === '' ? undefined : rawTxid;
  if (txid !== undefined && (typeof txid !== 'string' || !idPattern.test(txid)))
    return { ok: false, ...failure(base, 'txid', 'expected the txid as letters and digits', txid) };
  const amountInCents = apiPixCents(value['valor']);
  if (amountInCents === undefined)
    return { ok: false, ...failure(base, 'valor', 'expected the amount as a string like "110.00" (\\d{1,10}\\.\\d{2})', value['valor']) };
  const paidAt = value['horario'];
  if (typeof paidAt !== 'string' || Number.isNaN(Date.parse(paidAt)))
    return { ok: false, ...failure(base, 'horario', 'expected the payment time as an ISO 8601 date-time', paidAt) };
  const r = new LenientReader();
  const pix: ReceivedPix = { endToEndId, amountInCents, paidAt };
  if (txid !== undefined) pix.txid = txid;
  const key = r.text(value['chave'], base, 'chave');
  if (key !== undefined) pix.key = key;
  const payerInfo = r.text(value['infoPagador'], base, 'infoPagador');
  if (payerInfo !== undefined) pix.payerInfo = payerInfo;
  const components = r.object(value['componentesValor'], base, 'componentesValor');
  if (components !== undefined) pix.components = readComponents(r, components, join(base, 'componentesValor'));
  return { ok: true, read: { pix, warnings: r.warnings ?? noWarnings } };
}

function readComponents(r: LenientReader, source: JsonObject, base: string): PixValueComponents {
  const out: PixValueComponents = {};
  for (const [from, to] of componentNames) {
    const part = r.object(source[from], base, from);
    if (part === undefined) continue;
    const cents = apiPixCents(part['valor']);
    if (cents === undefined) r.warn(join(base, from), 'valor', part['valor'], 'expected an amount like "1.00"');
    else out[to] = cents;
  }
  return out;
}

/** The charge view the payment book reads: the txid names the charge; without one the Pix is its own. */
function chargeOf(pix: ReceivedPix, status: string, refund?: PixRefund): Transaction {
  const transaction: Transaction = {
    id: pix.txid ?? 'e2e:' + pix.endToEndId,
    status,
    amountInCents: pix.amountInCents,
    endToEndId: pix.endToEndId,
  };
  if (refund !== undefined) transaction.refund = refund;
  return transaction;
}

/**
 * The `pix_received` event of one standard `Pix` object (an item of `{ "pix": [...] }`, or `GET /pix`'s
 * listing): pure, so the webhook receiver and a reconciler build the same event and the same dedupe key.
 * Its `devolucoes` are not read here: see `pixRefundEvents`.
 */
export function pixReceivedEvent(pix: unknown, source: EventSource = 'webhook'): ApiPixRead<PixReceivedEvent> {
  const read = readPix(pix, '');
  if (!read.ok) return read;
  return { ok: true, event: receivedFrom(read.read, source, pix as JsonObject) };
}

function receivedFrom(read: PixRead, source: EventSource, item: JsonObject): PixReceivedEvent {
  return {
    kind: 'transaction',
    name: 'pix_received',
    variant: 'api-pix',
    source,
    provider: 'api-pix',
    pix: read.pix,
    transaction: chargeOf(read.pix, 'paid'),
    warnings: read.warnings,
    ...bodyOf({ event: 'pix_received', pix: item }),
  };
}

/** `devolucoes`: an array, or (the spec's own pixWebhook1) a single object. */
function refundsOf(value: unknown): { list: readonly unknown[]; base: string; indexed: boolean } {
  if (isAbsent(value)) return { list: [], base: 'devolucoes', indexed: true };
  if (Array.isArray(value)) return { list: value, base: 'devolucoes', indexed: true };
  return { list: [value], base: 'devolucoes', indexed: false };
}

function readRefund(
  value: unknown,
  base: string,
  endToEndId: string,
): { ok: true; refund: PixRefundUpdate } | ({ ok: false } & EssentialFailure) {
  if (!isJsonObject(value)) return { ok: false, ...failure('', base, 'expected a devolução object', value) };
  const id = value['id'];
  if (typeof id !== 'string' || !idPattern.test(id))
    return { ok: false, ...failure(base, 'id', 'expected the refund id as letters and digits', id) };
  const rtrId = value['rtrId'];
  if (typeof rtrId !== 'string' || !idPattern.test(rtrId))
    return { ok: false, ...failure(base, 'rtrId', 'expected the rtrId as letters and digits', rtrId) };
  const amountInCents = apiPixCents(value['valor']);
  if (amountInCents === undefined)
    return { ok: false, ...failure(base, 'valor', 'expected the amount as a string like "10.00"', value['valor']) };
  const rawStatus = value['status'];
  const status = typeof rawStatus === 'string' && Object.hasOwn(refundStatuses, rawStatus) ? refundStatuses[rawStatus] : undefined;
  if (status === undefined)
    return { ok: false, ...failure(base, 'status', 'expected EM_PROCESSAMENTO, DEVOLVIDO or NAO_REALIZADO', rawStatus) };
  const refund: PixRefundUpdate = { id, rtrId, amountInCents, status, endToEndId };
  const times = isJsonObject(value['horario']) ? value['horario'] : undefined;
  if (times !== undefined) {
    if (typeof times['solicitacao'] === 'string') refund.requestedAt = times['solicitacao'];
    if (typeof times['liquidacao'] === 'string') refund.settledAt = times['liquidacao'];
  }
  if (typeof value['natureza'] === 'string') refund.nature = value['natureza'];
  if (typeof value['motivo'] === 'string') refund.reason = value['motivo'];
  if (typeof value['descricao'] === 'string') refund.description = value['descricao'];
  return { ok: true, refund };
}

function refundFrom(
  read: PixRead,
  refund: PixRefundUpdate,
  source: EventSource,
  item: JsonObject,
  devolucao: unknown,
): PixRefundUpdatedEvent {
  // A returned refund moves the charge to `refunded`, as the gateway family's `transaction_refunded`
  // does; one still processing or not made leaves it paid.
  let transaction: Transaction;
  if (refund.status === 'returned') {
    const moved: PixRefund = { id: refund.id, amountInCents: refund.amountInCents };
    const at = refund.settledAt ?? refund.requestedAt;
    if (at !== undefined) moved.refundedAt = at;
    if (refund.reason !== undefined) moved.reason = refund.reason;
    transaction = chargeOf(read.pix, 'refunded', moved);
  } else transaction = chargeOf(read.pix, 'paid');
  return {
    kind: 'transaction',
    name: 'pix_refund_updated',
    variant: 'api-pix',
    source,
    provider: 'api-pix',
    refund,
    pix: read.pix,
    transaction,
    warnings: read.warnings,
    ...bodyOf({ event: 'pix_refund_updated', pix: item, devolucao: devolucao as JsonObject }),
  };
}

/** Every event one standard Pix item states: its `pix_received`, then one `pix_refund_updated` per devolução. */
export interface PixItemRead {
  events: ApiPixEvent[];
  /** Parts that could not be read (the Pix itself, or one devolução); the readable parts are still in `events`. */
  failures: EssentialFailure[];
}

export function readPixItem(item: unknown, base: string, source: EventSource = 'webhook'): PixItemRead {
  const read = readPix(item, base);
  if (!read.ok) return { events: [], failures: [{ path: read.path, message: read.message }] };
  const object = item as JsonObject;
  const events: ApiPixEvent[] = [receivedFrom(read.read, source, object)];
  const failures: EssentialFailure[] = [];
  const refunds = refundsOf(object['devolucoes']);
  refunds.list.forEach((devolucao, i) => {
    const path = join(base, refunds.indexed ? `devolucoes.${String(i)}` : 'devolucoes');
    const refund = readRefund(devolucao, path, read.read.pix.endToEndId);
    if (refund.ok) events.push(refundFrom(read.read, refund.refund, source, object, devolucao));
    else failures.push({ path: refund.path, message: refund.message });
  });
  return { events, failures };
}

function lastUpdate(value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const last: unknown = value[value.length - 1];
  return isJsonObject(last) && typeof last['data'] === 'string' ? last['data'] : undefined;
}

/** One `RecNotification` (`/rec`): a Pix Automático authorization at one status. */
export function recurrenceEvent(item: unknown, base: string, source: EventSource = 'webhook'): ApiPixRead<RecurrenceUpdatedEvent> {
  if (!isJsonObject(item)) return { ok: false, ...failure('', base, 'expected a recurrence object', item) };
  const id = item['idRec'];
  if (typeof id !== 'string' || !idPattern.test(id))
    return { ok: false, ...failure(base, 'idRec', 'expected idRec as letters and digits', id) };
  const status = item['status'];
  if (typeof status !== 'string' || status === '')
    return { ok: false, ...failure(base, 'status', 'expected the status as a string', status) };
  const updatedAt = lastUpdate(item['atualizacao']);
  return {
    ok: true,
    event: {
      kind: 'transaction',
      name: 'recurrence_updated',
      variant: 'api-pix',
      source,
      provider: 'api-pix',
      recurrence: { id, status, ...(updatedAt !== undefined && { updatedAt }) },
      // An authorization moves no money: the book keeps its status under its own id, amount 0.
      transaction: { id: 'rec:' + id, status, amountInCents: 0 },
      warnings: noWarnings,
      ...bodyOf({ event: 'recurrence_updated', rec: item }),
    },
  };
}

/** One `CobRNotification` (`/cobr`): a Pix Automático recurring charge at one status. */
export function recurringChargeEvent(
  item: unknown,
  base: string,
  source: EventSource = 'webhook',
): ApiPixRead<RecurringChargeUpdatedEvent> {
  if (!isJsonObject(item)) return { ok: false, ...failure('', base, 'expected a recurring charge object', item) };
  const txid = item['txid'];
  if (typeof txid !== 'string' || !idPattern.test(txid))
    return { ok: false, ...failure(base, 'txid', 'expected the txid as letters and digits', txid) };
  const status = item['status'];
  if (typeof status !== 'string' || status === '')
    return { ok: false, ...failure(base, 'status', 'expected the status as a string', status) };
  const recurrenceId = typeof item['idRec'] === 'string' ? item['idRec'] : undefined;
  const updatedAt = lastUpdate(item['atualizacao']);
  return {
    ok: true,
    event: {
      kind: 'transaction',
      name: 'recurring_charge_updated',
      variant: 'api-pix',
      source,
      provider: 'api-pix',
      recurringCharge: { txid, status, ...(recurrenceId !== undefined && { recurrenceId }), ...(updatedAt !== undefined && { updatedAt }) },
      // The payment itself arrives as a `pix_received` for this txid; this only tells the charge's state.
      transaction: { id: 'cobr:' + txid, status, amountInCents: 0 },
      warnings: noWarnings,
      ...bodyOf({ event: 'recurring_charge_updated', cobr: item }),
    },
  };
}

/**
 * Reads back the one-event envelope an API Pix event's `payload` is (`{ event, pix[, devolucao] }`,
 * `{ event, rec }`, `{ event, cobr }`): what a durable queue or a replay carries.
 */
export function readApiPixEnvelope(name: ApiPixEventName, value: JsonObject, source: EventSource): ApiPixRead<ApiPixEvent> {
  if (name === 'recurrence_updated') return recurrenceEvent(value['rec'], 'rec', source);
  if (name === 'recurring_charge_updated') return recurringChargeEvent(value['cobr'], 'cobr', source);
  const read = readPix(value['pix'], 'pix');
  if (!read.ok) return read;
  const item = value['pix'] as JsonObject;
  if (name === 'pix_received') return { ok: true, event: receivedFrom(read.read, source, item) };
  const refund = readRefund(value['devolucao'], 'devolucao', read.read.pix.endToEndId);
  if (!refund.ok) return refund;
  return { ok: true, event: refundFrom(read.read, refund.refund, source, item, value['devolucao']) };
}

function join(base: string, key: string): string {
  return base === '' ? key : `${base}.${key}`;
}
