import { pick, randomAlphanumerics, randomSource, type RandomSource } from './seeded-random.js';

/** Participants of the PIX network: ISPB (8 digits) and the name payers see. */
export const pixParticipants = [
  { ispb: '00000000', bank: 'Banco do Brasil S.A.' },
  { ispb: '60701190', bank: 'Itaú Unibanco S.A.' },
  { ispb: '60746948', bank: 'Banco Bradesco S.A.' },
  { ispb: '00360305', bank: 'Caixa Econômica Federal' },
  { ispb: '90400888', bank: 'Banco Santander (Brasil) S.A.' },
  { ispb: '18236120', bank: 'Nu Pagamentos S.A.' },
  { ispb: '00416968', bank: 'Banco Inter S.A.' },
] as const;

export interface EndToEndIdOptions {
  /** The payer's institution. Default: one of `pixParticipants`. */
  ispb?: string;
  /** When the payment happened (UTC). Default: now. */
  at?: Date;
  random?: RandomSource;
}

/** `E` + 8-digit ISPB + `yyyyMMddHHmm` (UTC) + 11 alphanumerics: 32 characters, as the central bank issues them. */
export function generateEndToEndId(options: EndToEndIdOptions = {}): string {
  const random = options.random ?? randomSource();
  const ispb = options.ispb ?? pick(random, pixParticipants).ispb;
  const at = options.at ?? new Date();
  const stamp = at.toISOString().replace(/[-:T]/g, '').slice(0, 12);
  return `E${ispb}${stamp}${randomAlphanumerics(random, 11)}`;
}
