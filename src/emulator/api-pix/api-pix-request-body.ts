import type { z } from 'zod';
import { ProblemAnswer } from './problem-answer.js';

/** A control's JSON body (empty is `{}`), checked by its schema; a problem answer names the first wrong field. */
export function controlBody<S extends z.ZodType>(schema: S, bytes: Buffer): z.output<S> {
  let value: unknown = {};
  if (bytes.length > 0) {
    try {
      value = JSON.parse(bytes.toString('utf8')) as unknown;
    } catch {
      throw new ProblemAnswer(400, 'RequisicaoInvalida', 'Requisição inválida.', 'O corpo não é JSON válido.');
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    throw new ProblemAnswer(400, 'RequisicaoInvalida', 'Requisição inválida.', `${where}: ${issue?.message ?? 'invalid'}`, [
      { razao: issue?.message ?? 'invalid', propriedade: where },
    ]);
  }
  return parsed.data;
}

/** An API call's JSON body: required; the state checks its fields as the PSP would. */
export function jsonBody(bytes: Buffer): unknown {
  if (bytes.length === 0) throw new ProblemAnswer(400, 'RequisicaoInvalida', 'Requisição inválida.', 'Um corpo JSON é obrigatório.');
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new ProblemAnswer(400, 'RequisicaoInvalida', 'Requisição inválida.', 'O corpo não é JSON válido.');
  }
}
