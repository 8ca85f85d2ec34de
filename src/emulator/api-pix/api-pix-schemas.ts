import { z } from 'zod';
import { ProblemAnswer, type EmulatorViolation } from './problem-answer.js';

// The request bodies of bacen/pix-api's openapi.yaml, as the PSP checks them.

const amountPattern = /^\d{1,10}\.\d{2}$/;
/** A `valor` (`"12.34"`, checked by `valorSchema`) in cents. */
export const centsOf = (value: string) => Number(value.slice(0, -3)) * 100 + Number(value.slice(-2));

export const valorSchema = z.string().regex(amountPattern, 'não respeita o _schema_ (\\d{1,10}\\.\\d{2})');
const devedorSchema = z
  .object({
    cpf: z
      .string()
      .regex(/^\d{11}$/)
      .optional(),
    cnpj: z
      .string()
      .regex(/^[0-9A-Z]{14}$/)
      .optional(),
    nome: z.string().max(200).optional(),
  })
  .refine((d) => !(d.cpf !== undefined && d.cnpj !== undefined), { message: 'cpf e cnpj ao mesmo tempo', path: ['cnpj'] })
  .refine((d) => d.nome === undefined || d.cpf !== undefined || d.cnpj !== undefined, { message: 'nome sem cpf ou cnpj', path: ['nome'] });
const commonCob = {
  valor: z.object({ original: valorSchema }).loose(),
  chave: z.string().min(1).max(77),
  solicitacaoPagador: z.string().max(140).optional(),
  infoAdicionais: z
    .array(z.object({ nome: z.string().max(50), valor: z.string().max(200) }))
    .max(50)
    .optional(),
};
export const cobBodySchema = z.object({
  calendario: z
    .object({ expiracao: z.int().min(1).optional() })
    .loose()
    .optional(),
  devedor: devedorSchema.optional(),
  ...commonCob,
});
export const cobvBodySchema = z.object({
  calendario: z.object({ dataDeVencimento: z.iso.date(), validadeAposVencimento: z.int().min(0).optional() }).loose(),
  devedor: devedorSchema.refine((d) => d.cpf !== undefined || d.cnpj !== undefined, { message: 'cpf ou cnpj obrigatório' }),
  ...commonCob,
});
export const refundBodySchema = z.object({
  valor: valorSchema,
  natureza: z.enum(['ORIGINAL', 'RETIRADA']).optional(),
  descricao: z.string().max(140).optional(),
});
export const webhookBodySchema = z.object({ webhookUrl: z.url({ protocol: /^https?$/ }).max(512) });

export const txidPattern = /^[a-zA-Z0-9]{26,35}$/;
export const anyIdPattern = /^[a-zA-Z0-9]{1,35}$/;

function violationsOf(prefix: string, error: z.ZodError): EmulatorViolation[] {
  return error.issues.map((issue) => ({
    razao: `O campo ${[prefix, ...issue.path.map(String)].join('.')} ${issue.message}`,
    propriedade: [prefix, ...issue.path.map(String)].join('.'),
  }));
}

/** `body` checked by `schema`, or a 400 problem listing each violation under `prefix`. */
export function parse<S extends z.ZodType>(
  schema: S,
  body: unknown,
  prefix: string,
  type: string,
  title: string,
  detail: string,
): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new ProblemAnswer(400, type, title, detail, violationsOf(prefix, parsed.error));
  return parsed.data;
}
