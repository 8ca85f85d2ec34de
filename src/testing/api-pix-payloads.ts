// Standard API Pix bodies (bacen/pix-api openapi.yaml), as a PSP sends them to `{webhookUrl}/pix`.
import { generateEndToEndId } from './end-to-end-id.js';
import { randomAlphanumerics, randomSource, type RandomSource } from './seeded-random.js';

/** A standard `Pix` object; amounts are the standard's decimal strings (`"110.00"`). */
export interface ApiPixPix {
  endToEndId: string;
  txid?: string;
  valor: string;
  chave?: string;
  horario: string;
  infoPagador?: string;
  componentesValor?: Record<string, { valor: string }>;
  devolucoes?: ApiPixDevolucao[] | ApiPixDevolucao;
}

export interface ApiPixDevolucao {
  id: string;
  rtrId: string;
  valor: string;
  natureza?: string;
  horario: { solicitacao: string; liquidacao?: string };
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
  motivo?: string;
}

export interface ApiPixPixOptions {
  endToEndId?: string;
  /** The charge's txid; `null` for a Pix without one (a static QR code, a key transfer). Default: random, 32 characters. */
  txid?: string | null;
  /** Integer cents, written as the standard's decimal string. Default 1000 (`"10.00"`). */
  amountInCents?: number;
  /** The receiving key (`chave`). Default none. */
  key?: string;
  /** `horario`. Default now. */
  paidAt?: string;
  payerInfo?: string;
  devolucoes?: ApiPixDevolucao[] | ApiPixDevolucao;
  random?: RandomSource;
}

/** Integer cents as the standard's `\d{1,10}\.\d{2}` string: 11000 → `"110.00"`. */
export function apiPixAmount(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new RangeError('apiPixAmount: expected non-negative integer cents');
  const text = String(cents).padStart(3, '0');
  return `${text.slice(0, -2)}.${text.slice(-2)}`;
}

/** One standard `Pix` object. */
export function apiPixPix(options: ApiPixPixOptions = {}): ApiPixPix {
  const random = options.random ?? randomSource();
  const pix: ApiPixPix = {
    endToEndId: options.endToEndId ?? generateEndToEndId({ random }),
    valor: apiPixAmount(options.amountInCents ?? 1000),
    horario: options.paidAt ?? new Date().toISOString(),
  };
  if (options.txid !== null) pix.txid = options.txid ?? randomAlphanumerics(random, 32);
  if (options.key !== undefined) pix.chave = options.key;
  if (options.payerInfo !== undefined) pix.infoPagador = options.payerInfo;
  if (options.devolucoes !== undefined) pix.devolucoes = options.devolucoes;
  return pix;
}

export interface ApiPixRefundOptions {
  id?: string;
  rtrId?: string;
  amountInCents?: number;
  status?: ApiPixDevolucao['status'];
  nature?: string;
  requestedAt?: string;
  reason?: string;
  random?: RandomSource;
}

/** One standard `Devolucao`. Default: 10.00, `DEVOLVIDO`, settled now. */
export function apiPixRefund(options: ApiPixRefundOptions = {}): ApiPixDevolucao {
  const random = options.random ?? randomSource();
  const at = options.requestedAt ?? new Date().toISOString();
  const status = options.status ?? 'DEVOLVIDO';
  const refund: ApiPixDevolucao = {
    id: options.id ?? randomAlphanumerics(random, 12),
    rtrId: options.rtrId ?? `D${generateEndToEndId({ random }).slice(1)}`,
    valor: apiPixAmount(options.amountInCents ?? 1000),
    horario: status === 'EM_PROCESSAMENTO' ? { solicitacao: at } : { solicitacao: at, liquidacao: at },
    status,
  };
  if (options.nature !== undefined) refund.natureza = options.nature;
  if (options.reason !== undefined) refund.motivo = options.reason;
  return refund;
}

/** The body of a `/pix` call: `{ "pix": [...] }`, or (`shape: 'bare'`) the bare array some PSPs send (Inter). */
export function apiPixBody(items: readonly ApiPixPix[], options: { shape?: 'wrapped' | 'bare' } = {}): string {
  return JSON.stringify(options.shape === 'bare' ? items : { pix: items });
}
