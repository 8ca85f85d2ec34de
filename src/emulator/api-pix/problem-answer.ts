import { PixhookError } from '../../index.js';

/** One `violacoes` item. */
export interface EmulatorViolation {
  razao: string;
  propriedade: string;
}

/** A request the emulated PSP refuses, answered as the standard's RFC 7807 `Problema`. */
export class ProblemAnswer extends PixhookError {
  override name = 'ProblemAnswer';
  readonly type: string;
  readonly title: string;
  readonly detail: string;
  readonly violacoes: EmulatorViolation[];
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    type: string,
    title: string,
    detail: string,
    violacoes: EmulatorViolation[] = [],
    headers: Record<string, string> = {},
  ) {
    super('request_invalid', detail, { status });
    this.type = `https://pix.bcb.gov.br/api/v2/error/${type}`;
    this.title = title;
    this.detail = detail;
    this.violacoes = violacoes;
    this.headers = headers;
  }

  body(): Record<string, unknown> {
    return {
      type: this.type,
      title: this.title,
      status: this.status,
      detail: this.detail,
      ...(this.violacoes.length > 0 && { violacoes: this.violacoes }),
    };
  }
}

export const notFound = (what: string) => new ProblemAnswer(404, 'NaoEncontrado', 'Não Encontrado', `${what} não encontrado(a).`);
