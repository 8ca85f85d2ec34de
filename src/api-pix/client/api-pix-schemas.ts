import { z } from 'zod';
import { centsFromDecimal } from './decimal-amount.js';

// Answers are read tolerantly (unknown fields kept out, optional fields optional) but every amount strictly:
// a `valor` that does not match the standard's pattern fails the call instead of becoming a wrong number.

const amount = z.string().transform((value, ctx) => {
  const cents = centsFromDecimal(value);
  if (cents === undefined) {
    ctx.addIssue({ code: 'custom', message: `expected a decimal amount like "110.00", got ${JSON.stringify(value).slice(0, 40)}` });
    return z.NEVER;
  }
  return cents;
});

/** A refund as pixhook names its statuses (the same words as the receiver's `pix_refund_updated`). */
export type ApiPixRefundStatus = 'processing' | 'returned' | 'not_returned';
const refundStatus = z
  .enum(['EM_PROCESSAMENTO', 'DEVOLVIDO', 'NAO_REALIZADO'])
  .transform((status): ApiPixRefundStatus =>
    status === 'DEVOLVIDO' ? 'returned' : status === 'NAO_REALIZADO' ? 'not_returned' : 'processing',
  );

export const refundSchema = z.object({
  id: z.string().min(1),
  rtrId: z.string().min(1),
  valor: amount,
  natureza: z.string().optional(),
  descricao: z.string().optional(),
  horario: z.object({ solicitacao: z.string().optional(), liquidacao: z.string().optional() }).optional(),
  status: refundStatus,
  motivo: z.string().optional(),
});

const componentSchema = z.object({ valor: amount });
export const pixSchema = z.object({
  endToEndId: z.string().min(1),
  txid: z.string().optional(),
  valor: amount,
  chave: z.string().optional(),
  horario: z.string().min(1),
  infoPagador: z.string().optional(),
  componentesValor: z.record(z.string(), componentSchema).optional(),
  // The spec's own example gives one object instead of an array: both are read.
  devolucoes: z.union([z.array(refundSchema), refundSchema]).optional(),
});

const personSchema = z.object({ cpf: z.string().optional(), cnpj: z.string().optional(), nome: z.string().optional() });

export const chargeSchema = z.object({
  txid: z.string().min(1),
  status: z.string().min(1),
  revisao: z.number().int().optional(),
  calendario: z.object({
    criacao: z.string().optional(),
    expiracao: z.number().int().optional(),
    dataDeVencimento: z.string().optional(),
    validadeAposVencimento: z.number().int().optional(),
  }),
  valor: z.object({ original: amount }).loose(),
  chave: z.string(),
  location: z.string().optional(),
  loc: z.object({ location: z.string().optional() }).loose().optional(),
  pixCopiaECola: z.string().optional(),
  devedor: personSchema.optional(),
  solicitacaoPagador: z.string().optional(),
  pix: z.array(pixSchema).optional(),
});

const paginationSchema = z.object({
  paginaAtual: z.number().int().min(0),
  itensPorPagina: z.number().int().min(1),
  quantidadeDePaginas: z.number().int().min(0),
  quantidadeTotalDeItens: z.number().int().min(0),
});

export const pixPageSchema = z.object({
  parametros: z.object({ paginacao: paginationSchema }).loose(),
  pix: z.array(pixSchema).optional(),
});

export const webhookSchema = z.object({
  webhookUrl: z.string().min(1),
  chave: z.string().optional(),
  criacao: z.string().optional(),
});

/** A refund (devolução) of a received Pix. */
export interface ApiPixRefund {
  id: string;
  rtrId: string;
  amountInCents: number;
  status: ApiPixRefundStatus;
  /** `ORIGINAL`, `RETIRADA`, `MED_OPERACIONAL`, `MED_FRAUDE`, … */
  nature?: string;
  description?: string;
  requestedAt?: string;
  settledAt?: string;
  /** Why it reached its status (`motivo`), e.g. why it was not done. */
  reason?: string;
}

/** A Pix received, the fields named as the receiver's `pix_received` names them. */
export interface ApiPixReceived {
  endToEndId: string;
  txid?: string;
  amountInCents: number;
  /** The receiving key (`chave`). */
  key?: string;
  paidAt: string;
  /** `infoPagador`: the payer's free text. */
  payerInfo?: string;
  /** `componentesValor`, each in cents: `original`, `saque`, `troco`, `juros`, `multa`, `abatimento`, `desconto`. */
  components?: Record<string, number>;
  refunds: ApiPixRefund[];
}

export interface ApiPixPerson {
  cpf?: string;
  cnpj?: string;
  name?: string;
}

/** An immediate (`cob`) or due-date (`cobv`) charge as the PSP keeps it. */
export interface ApiPixCharge {
  txid: string;
  /** `ATIVA`, `CONCLUIDA`, `REMOVIDA_PELO_USUARIO_RECEBEDOR`, `REMOVIDA_PELO_PSP`. */
  status: string;
  revision: number;
  amountInCents: number;
  key: string;
  createdAt?: string;
  /** `cob`: seconds from creation. */
  expiresInSeconds?: number;
  /** `cobv`: `YYYY-MM-DD`, and the days it can still be paid after. */
  dueDate?: string;
  validAfterDueDays?: number;
  /** The payload URL (without scheme) the QR code points at. */
  location?: string;
  /** The BR Code (copia e cola), when the PSP returns it. */
  pixCopyPaste?: string;
  payer?: ApiPixPerson;
  payerRequest?: string;
  pix: ApiPixReceived[];
}

export interface ApiPixWebhook {
  key: string;
  url: string;
  createdAt?: string;
}

export function refundFrom(raw: z.output<typeof refundSchema>): ApiPixRefund {
  return {
    id: raw.id,
    rtrId: raw.rtrId,
    amountInCents: raw.valor,
    status: raw.status,
    ...(raw.natureza !== undefined && { nature: raw.natureza }),
    ...(raw.descricao !== undefined && { description: raw.descricao }),
    ...(raw.horario?.solicitacao !== undefined && { requestedAt: raw.horario.solicitacao }),
    ...(raw.horario?.liquidacao !== undefined && { settledAt: raw.horario.liquidacao }),
    ...(raw.motivo !== undefined && { reason: raw.motivo }),
  };
}

export function pixFrom(raw: z.output<typeof pixSchema>): ApiPixReceived {
  const refunds = raw.devolucoes === undefined ? [] : Array.isArray(raw.devolucoes) ? raw.devolucoes : [raw.devolucoes];
  return {
    endToEndId: raw.endToEndId,
    ...(raw.txid !== undefined && { txid: raw.txid }),
    amountInCents: raw.valor,
    ...(raw.chave !== undefined && { key: raw.chave }),
    paidAt: raw.horario,
    ...(raw.infoPagador !== undefined && { payerInfo: raw.infoPagador }),
    ...(raw.componentesValor !== undefined && {
      components: Object.fromEntries(Object.entries(raw.componentesValor).map(([name, part]) => [name, part.valor])),
    }),
    refunds: refunds.map(refundFrom),
  };
}

export function chargeFrom(raw: z.output<typeof chargeSchema>): ApiPixCharge {
  const location = raw.location ?? raw.loc?.location;
  const payer: ApiPixPerson | undefined = raw.devedor && {
    ...(raw.devedor.cpf !== undefined && { cpf: raw.devedor.cpf }),
    ...(raw.devedor.cnpj !== undefined && { cnpj: raw.devedor.cnpj }),
    ...(raw.devedor.nome !== undefined && { name: raw.devedor.nome }),
  };
  return {
    txid: raw.txid,
    status: raw.status,
    revision: raw.revisao ?? 0,
    amountInCents: raw.valor.original,
    key: raw.chave,
    ...(raw.calendario.criacao !== undefined && { createdAt: raw.calendario.criacao }),
    ...(raw.calendario.expiracao !== undefined && { expiresInSeconds: raw.calendario.expiracao }),
    ...(raw.calendario.dataDeVencimento !== undefined && { dueDate: raw.calendario.dataDeVencimento }),
    ...(raw.calendario.validadeAposVencimento !== undefined && { validAfterDueDays: raw.calendario.validadeAposVencimento }),
    ...(location !== undefined && { location }),
    ...(raw.pixCopiaECola !== undefined && { pixCopyPaste: raw.pixCopiaECola }),
    ...(payer !== undefined && { payer }),
    ...(raw.solicitacaoPagador !== undefined && { payerRequest: raw.solicitacaoPagador }),
    pix: (raw.pix ?? []).map(pixFrom),
  };
}

export function webhookFrom(raw: z.output<typeof webhookSchema>, key: string): ApiPixWebhook {
  return { key: raw.chave ?? key, url: raw.webhookUrl, ...(raw.criacao !== undefined && { createdAt: raw.criacao }) };
}
