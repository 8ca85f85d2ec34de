import { z } from 'zod';
import { randomAlnum, stamp } from './api-pix-ids.js';
import {
  cobJson,
  decimal,
  iso,
  pixJson,
  refundJson,
  webhookJson,
  type EmulatorCob,
  type EmulatorPix,
  type EmulatorRefund,
  type EmulatorWebhook,
} from './api-pix-records.js';
import {
  anyIdPattern,
  centsOf,
  cobBodySchema,
  cobvBodySchema,
  parse,
  refundBodySchema,
  txidPattern,
  valorSchema,
  webhookBodySchema,
} from './api-pix-schemas.js';
import { ProblemAnswer, notFound, type EmulatorViolation } from './problem-answer.js';

interface StateHooks {
  now: () => number;
  /** The PSP's ISPB, in endToEndIds and rtrIds. */
  ispb: string;
  /** The host of the payload location (`{host}/qr/v2/{id}`). */
  locationHost: string;
  /** A Pix (new, or with a refund that reached a final status) to notify. */
  notify: (pix: EmulatorPix) => void;
}

/** The emulated PSP's books: charges (cob, cobv), Pix received, refunds and webhooks, by bacen/pix-api's rules. */
export function createApiPixState(hooks: StateHooks) {
  const cobs = new Map<string, EmulatorCob>();
  const pixByE2e = new Map<string, EmulatorPix>();
  const pixInOrder: EmulatorPix[] = [];
  const webhooks = new Map<string, EmulatorWebhook>();
  let locSequence = 0;

  const endToEndId = (at: number) => `E${hooks.ispb}${stamp(at)}${randomAlnum(11)}`;
  const rtrId = (at: number) => `D${hooks.ispb}${stamp(at)}${randomAlnum(11)}`;
  const cobJsonOf = (cob: EmulatorCob) => cobJson(cob, hooks.locationHost, (id) => pixByE2e.get(id) as EmulatorPix);

  function cobFor(kind: 'cob' | 'cobv', txid: string): EmulatorCob {
    const cob = cobs.get(txid);
    if (!cob || cob.kind !== kind) throw notFound(`A cobrança ${txid}`);
    return cob;
  }

  function checkTxid(kind: 'cob' | 'cobv', txid: string): void {
    if (!txidPattern.test(txid)) {
      throw new ProblemAnswer(
        400,
        kind === 'cob' ? 'CobOperacaoInvalida' : 'CobVOperacaoInvalida',
        'Cobrança inválida.',
        'O txid não respeita o _schema_.',
        [{ razao: 'O campo txid não respeita o _schema_ ([a-zA-Z0-9]{26,35}).', propriedade: `${kind}.txid` }],
      );
    }
  }

  function putCob(kind: 'cob' | 'cobv', txid: string, body: unknown): { created: boolean; json: Record<string, unknown> } {
    const type = kind === 'cob' ? 'CobOperacaoInvalida' : 'CobVOperacaoInvalida';
    checkTxid(kind, txid);
    const detail = `A requisição que busca alterar ou criar uma cobrança ${kind === 'cob' ? 'para pagamento imediato' : 'com vencimento'} não respeita o _schema_ ou está semanticamente errada.`;
    const requestText = JSON.stringify(body);
    const existing = cobs.get(txid);
    if (existing) {
      if (existing.status !== 'ATIVA') {
        throw new ProblemAnswer(
          400,
          type,
          'Operação inválida.',
          'Cobrança não encontra-se mais com o status ATIVA, somente cobranças ativas podem ser revisadas.',
        );
      }
      // The same request again (a client's retry) is the same charge; another one under this txid is refused.
      if (existing.kind === kind && existing.requestText === requestText) return { created: false, json: cobJsonOf(existing) };
      throw new ProblemAnswer(400, type, 'Operação inválida.', `O txid ${txid} já está em uso por outra cobrança.`, [
        { razao: 'txid já utilizado', propriedade: `${kind}.txid` },
      ]);
    }
    const at = hooks.now();
    const base = { kind, txid, status: 'ATIVA' as const, revisao: 0, createdAt: at, locId: ++locSequence, requestText, endToEndIds: [] };
    let cob: EmulatorCob;
    if (kind === 'cob') {
      const parsed = parse(cobBodySchema, body, 'cob', type, 'Cobrança inválida.', detail);
      if (centsOf(parsed.valor.original) === 0) {
        throw new ProblemAnswer(400, type, 'Cobrança inválida.', detail, [
          { razao: 'Valor da cobrança não pode ser 0.00', propriedade: 'cob.valor.original' },
        ]);
      }
      cob = {
        ...base,
        expiracao: parsed.calendario?.expiracao ?? 3600,
        amountInCents: centsOf(parsed.valor.original),
        chave: parsed.chave,
        ...(parsed.devedor && { devedor: parsed.devedor }),
        ...(parsed.solicitacaoPagador !== undefined && { solicitacaoPagador: parsed.solicitacaoPagador }),
      };
    } else {
      const parsed = parse(cobvBodySchema, body, 'cobv', type, 'Cobrança inválida.', detail);
      cob = {
        ...base,
        dataDeVencimento: parsed.calendario.dataDeVencimento,
        validadeAposVencimento: parsed.calendario.validadeAposVencimento ?? 30,
        amountInCents: centsOf(parsed.valor.original),
        chave: parsed.chave,
        devedor: parsed.devedor,
        ...(parsed.solicitacaoPagador !== undefined && { solicitacaoPagador: parsed.solicitacaoPagador }),
      };
    }
    cobs.set(txid, cob);
    return { created: true, json: cobJsonOf(cob) };
  }

  function patchCob(txid: string, body: unknown): Record<string, unknown> {
    const cob = cobFor('cob', txid);
    if (cob.status !== 'ATIVA') {
      throw new ProblemAnswer(
        400,
        'CobOperacaoInvalida',
        'Operação inválida.',
        'Cobrança não encontra-se mais com o status ATIVA, somente cobranças ativas podem ser revisadas.',
      );
    }
    const parsed = parse(
      z.object({ valor: z.object({ original: valorSchema }).optional(), status: z.literal('REMOVIDA_PELO_USUARIO_RECEBEDOR').optional() }),
      body,
      'cob',
      'CobOperacaoInvalida',
      'Cobrança inválida.',
      'A revisão da cobrança não respeita o _schema_.',
    );
    if (parsed.valor) cob.amountInCents = centsOf(parsed.valor.original);
    if (parsed.status) cob.status = parsed.status;
    cob.revisao++;
    return cobJsonOf(cob);
  }

  function receive(pix: EmulatorPix, notify: boolean): EmulatorPix {
    pixByE2e.set(pix.endToEndId, pix);
    pixInOrder.push(pix);
    if (notify) hooks.notify(pix);
    return pix;
  }

  function pay(txid: string, payment: { amountInCents?: number | undefined; infoPagador?: string | undefined }): Record<string, unknown> {
    const cob = cobs.get(txid);
    if (!cob) throw notFound(`A cobrança ${txid}`);
    if (cob.status !== 'ATIVA') {
      throw new ProblemAnswer(
        400,
        'CobOperacaoInvalida',
        'Operação inválida.',
        `A cobrança ${txid} está ${cob.status} e não aceita pagamento.`,
      );
    }
    const at = hooks.now();
    const pix = receive(
      {
        endToEndId: endToEndId(at),
        txid,
        amountInCents: payment.amountInCents ?? cob.amountInCents,
        chave: cob.chave,
        horario: at,
        ...(payment.infoPagador !== undefined && { infoPagador: payment.infoPagador }),
        devolucoes: [],
      },
      false,
    );
    cob.status = 'CONCLUIDA';
    cob.endToEndIds.push(pix.endToEndId);
    hooks.notify(pix);
    return pixJson(pix);
  }

  function pixToKey(input: {
    chave: string;
    amountInCents: number;
    infoPagador?: string | undefined;
    notify: boolean;
  }): Record<string, unknown> {
    const at = hooks.now();
    const pix = receive(
      {
        endToEndId: endToEndId(at),
        amountInCents: input.amountInCents,
        chave: input.chave,
        horario: at,
        ...(input.infoPagador !== undefined && { infoPagador: input.infoPagador }),
        devolucoes: [],
      },
      input.notify,
    );
    return pixJson(pix);
  }

  function pixFor(e2eid: string): EmulatorPix {
    const pix = pixByE2e.get(e2eid);
    if (!pix) throw notFound(`O Pix ${e2eid}`);
    return pix;
  }

  function refundable(pix: EmulatorPix): number {
    return pix.amountInCents - pix.devolucoes.filter((d) => d.status !== 'NAO_REALIZADO').reduce((sum, d) => sum + d.amountInCents, 0);
  }

  function requestRefund(
    e2eid: string,
    id: string,
    body: unknown,
  ): { created: boolean; refund: EmulatorRefund; json: Record<string, unknown> } {
    const invalid = (detail: string, violacoes: EmulatorViolation[] = []) =>
      new ProblemAnswer(400, 'PixDevolucaoInvalida', 'Devolução inválida.', detail, violacoes);
    if (!anyIdPattern.test(id))
      throw invalid('O id da devolução não respeita o _schema_.', [{ razao: 'id inválido', propriedade: 'devolucao.id' }]);
    const pix = pixFor(e2eid);
    const parsed = parse(
      refundBodySchema,
      body,
      'devolucao',
      'PixDevolucaoInvalida',
      'Devolução inválida.',
      'A presente requisição de devolução não respeita o _schema_ ou não faz sentido semanticamente.',
    );
    const amount = centsOf(parsed.valor);
    const existing = pix.devolucoes.find((d) => d.id === id);
    if (existing) {
      if (existing.amountInCents === amount) return { created: false, refund: existing, json: refundJson(existing) };
      throw invalid(`A devolução ${id} já existe com outro valor.`);
    }
    if (amount === 0 || amount > refundable(pix)) {
      throw invalid('O valor da devolução excede o valor disponível para devolução.', [
        { razao: 'valor acima do disponível', propriedade: 'devolucao.valor' },
      ]);
    }
    const at = hooks.now();
    const refund: EmulatorRefund = {
      id,
      rtrId: rtrId(at),
      amountInCents: amount,
      natureza: parsed.natureza ?? 'ORIGINAL',
      ...(parsed.descricao !== undefined && { descricao: parsed.descricao }),
      solicitacao: at,
      status: 'EM_PROCESSAMENTO',
    };
    pix.devolucoes.push(refund);
    return { created: true, refund, json: refundJson(refund) };
  }

  /** Moves a refund to its final status and notifies the Pix, as the standard does for `DEVOLVIDO` / `NAO_REALIZADO`. */
  function settleRefund(e2eid: string, id: string, status: 'DEVOLVIDO' | 'NAO_REALIZADO', motivo?: string): void {
    const pix = pixByE2e.get(e2eid);
    const refund = pix?.devolucoes.find((d) => d.id === id);
    if (!pix || !refund || refund.status !== 'EM_PROCESSAMENTO') return;
    refund.status = status;
    refund.liquidacao = hooks.now();
    if (motivo !== undefined) refund.motivo = motivo;
    hooks.notify(pix);
  }

  function listPix(query: URLSearchParams): Record<string, unknown> {
    const inicio = Date.parse(query.get('inicio') ?? '');
    const fim = Date.parse(query.get('fim') ?? '');
    const invalid = (propriedade: string) =>
      new ProblemAnswer(400, 'RequisicaoInvalida', 'Requisição inválida.', `O parâmetro ${propriedade} é inválido.`, [
        { razao: `O parâmetro ${propriedade} não respeita o _schema_.`, propriedade },
      ]);
    if (!Number.isFinite(inicio)) throw invalid('inicio');
    if (!Number.isFinite(fim) || fim < inicio) throw invalid('fim');
    const page = Number(query.get('paginacao.paginaAtual') ?? '0');
    const perPage = Number(query.get('paginacao.itensPorPagina') ?? '100');
    if (!Number.isInteger(page) || page < 0) throw invalid('paginacao.paginaAtual');
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > 1000) throw invalid('paginacao.itensPorPagina');
    const txid = query.get('txid');
    const matching = pixInOrder.filter((p) => p.horario >= inicio && p.horario <= fim && (txid === null || p.txid === txid));
    const pages = Math.max(1, Math.ceil(matching.length / perPage));
    return {
      parametros: {
        inicio: iso(inicio),
        fim: iso(fim),
        paginacao: { paginaAtual: page, itensPorPagina: perPage, quantidadeDePaginas: pages, quantidadeTotalDeItens: matching.length },
      },
      pix: matching.slice(page * perPage, (page + 1) * perPage).map(pixJson),
    };
  }

  function putWebhook(chave: string, body: unknown): Record<string, unknown> {
    const parsed = parse(
      webhookBodySchema,
      body,
      'webhook',
      'WebhookOperacaoInvalida',
      'Webhook inválido.',
      'A presente requisição busca criar um webhook sem respeitar o _schema_ ou, ainda, com sentido semanticamente inválido.',
    );
    const webhook: EmulatorWebhook = { chave, webhookUrl: parsed.webhookUrl, criacao: hooks.now(), failures: 0 };
    webhooks.set(chave, webhook);
    return webhookJson(webhook);
  }

  function webhookFor(chave: string): EmulatorWebhook {
    const webhook = webhooks.get(chave);
    if (!webhook) throw notFound(`O webhook da chave ${chave}`);
    return webhook;
  }

  return {
    putCob,
    getCob: (kind: 'cob' | 'cobv', txid: string) => cobJsonOf(cobFor(kind, txid)),
    patchCob,
    newTxid: () => randomAlnum(32),
    expire(txid: string): Record<string, unknown> {
      const cob = cobs.get(txid);
      if (!cob) throw notFound(`A cobrança ${txid}`);
      cob.expiredAt = hooks.now();
      if (cob.kind === 'cob') cob.expiracao = Math.max(0, Math.floor((cob.expiredAt - cob.createdAt) / 1000));
      return cobJsonOf(cob);
    },
    pay,
    pixToKey,
    getPix: (e2eid: string) => pixJson(pixFor(e2eid)),
    pixJson,
    listPix,
    requestRefund,
    settleRefund,
    getRefund(e2eid: string, id: string): Record<string, unknown> {
      const refund = pixFor(e2eid).devolucoes.find((d) => d.id === id);
      if (!refund) throw notFound(`A devolução ${id}`);
      return refundJson(refund);
    },
    /** A refund the PSP settles on its own (a MED return, a refund made in the bank's app), notified at once. */
    finalRefund(
      e2eid: string,
      input: {
        id?: string | undefined;
        amountInCents?: number | undefined;
        status?: 'DEVOLVIDO' | 'NAO_REALIZADO' | undefined;
        natureza?: string | undefined;
      },
    ) {
      const pix = pixFor(e2eid);
      const amount = input.amountInCents ?? refundable(pix);
      const { refund } = requestRefund(e2eid, input.id ?? `D${randomAlnum(20)}`, { valor: decimal(amount) });
      if (input.natureza !== undefined) refund.natureza = input.natureza;
      settleRefund(e2eid, refund.id, input.status ?? 'DEVOLVIDO');
      return refundJson(refund);
    },
    putWebhook,
    getWebhook: (chave: string) => webhookJson(webhookFor(chave)),
    deleteWebhook(chave: string): void {
      webhookFor(chave);
      webhooks.delete(chave);
    },
    listWebhooks: () => [...webhooks.values()].map(webhookJson),
    webhookFor: (chave: string) => webhooks.get(chave),
    webhooks: () => [...webhooks.values()].map((w) => ({ ...w })),
    cobs: () => [...cobs.values()].map((cob) => cobJsonOf(cob)),
    pix: () => pixInOrder.map(pixJson),
  };
}
