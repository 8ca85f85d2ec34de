// The emulated PSP's records, and how the standard writes them in answers: amounts are kept in cents and
// written as decimal strings only there; times as ISO 8601.
import { buildDynamicEmvCode } from '../emv-code.js';

type CobStatus = 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';
type RefundStatus = 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';

export interface EmulatorCob {
  kind: 'cob' | 'cobv';
  txid: string;
  status: CobStatus;
  revisao: number;
  createdAt: number;
  expiracao?: number;
  dataDeVencimento?: string;
  validadeAposVencimento?: number;
  /** Set by the `expire` control: the charge counts as expired from then on. */
  expiredAt?: number;
  amountInCents: number;
  chave: string;
  devedor?: { cpf?: string | undefined; cnpj?: string | undefined; nome?: string | undefined };
  solicitacaoPagador?: string;
  locId: number;
  /** The request body's canonical text: the same PUT again is answered with the same charge. */
  requestText: string;
  endToEndIds: string[];
}

export interface EmulatorRefund {
  id: string;
  rtrId: string;
  amountInCents: number;
  natureza: string;
  descricao?: string;
  solicitacao: number;
  liquidacao?: number;
  status: RefundStatus;
  motivo?: string;
}

export interface EmulatorPix {
  endToEndId: string;
  txid?: string;
  amountInCents: number;
  chave: string;
  horario: number;
  infoPagador?: string;
  devolucoes: EmulatorRefund[];
}

export interface EmulatorWebhook {
  chave: string;
  webhookUrl: string;
  criacao: number;
  /** Failed delivery attempts in a row; reset by a success. */
  failures: number;
  /** Set once `failures` reached the limit: nothing more is sent to it until it is configured again. */
  disabledAt?: number;
}

export const decimal = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
export const iso = (ms: number) => new Date(ms).toISOString();
/** A charge as `GET /cob/{txid}` answers it; `pixOf` finds each Pix paid to it. */
export function cobJson(cob: EmulatorCob, locationHost: string, pixOf: (endToEndId: string) => EmulatorPix): Record<string, unknown> {
  const location = `${locationHost}/qr/v2/${cob.locId.toString(16).padStart(32, '0')}`;
  return {
    calendario:
      cob.kind === 'cob'
        ? { criacao: iso(cob.createdAt), expiracao: cob.expiracao }
        : { criacao: iso(cob.createdAt), dataDeVencimento: cob.dataDeVencimento, validadeAposVencimento: cob.validadeAposVencimento },
    txid: cob.txid,
    revisao: cob.revisao,
    loc: { id: cob.locId, location, tipoCob: cob.kind, criacao: iso(cob.createdAt) },
    location,
    // The BR Code of the charge, as the spec's CobGerada carries it: the client's `pixCopyPaste`.
    pixCopiaECola: buildDynamicEmvCode({
      location,
      amountInCents: cob.amountInCents,
      merchantName: 'PIXHOOK EMULATOR',
      merchantCity: 'SAO PAULO',
    }),
    status: cob.status,
    ...(cob.devedor && { devedor: cob.devedor }),
    valor: { original: decimal(cob.amountInCents) },
    chave: cob.chave,
    ...(cob.solicitacaoPagador !== undefined && { solicitacaoPagador: cob.solicitacaoPagador }),
    ...(cob.endToEndIds.length > 0 && { pix: cob.endToEndIds.map((id) => pixJson(pixOf(id))) }),
  };
}

export function refundJson(refund: EmulatorRefund): Record<string, unknown> {
  return {
    id: refund.id,
    rtrId: refund.rtrId,
    valor: decimal(refund.amountInCents),
    natureza: refund.natureza,
    ...(refund.descricao !== undefined && { descricao: refund.descricao }),
    horario: { solicitacao: iso(refund.solicitacao), ...(refund.liquidacao !== undefined && { liquidacao: iso(refund.liquidacao) }) },
    status: refund.status,
    ...(refund.motivo !== undefined && { motivo: refund.motivo }),
  };
}

export function pixJson(pix: EmulatorPix): Record<string, unknown> {
  return {
    endToEndId: pix.endToEndId,
    ...(pix.txid !== undefined && { txid: pix.txid }),
    valor: decimal(pix.amountInCents),
    chave: pix.chave,
    horario: iso(pix.horario),
    ...(pix.infoPagador !== undefined && { infoPagador: pix.infoPagador }),
    ...(pix.devolucoes.length > 0 && { devolucoes: pix.devolucoes.map(refundJson) }),
  };
}

export function webhookJson(webhook: EmulatorWebhook): Record<string, unknown> {
  return { webhookUrl: webhook.webhookUrl, chave: webhook.chave, criacao: iso(webhook.criacao) };
}
