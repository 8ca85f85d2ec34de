// `pixhook send --profile api-pix`: one standard API Pix call (bacen/pix-api), as a PSP makes it to `{webhookUrl}/pix`.
import { apiPixBody, apiPixPix, apiPixRefund, type ApiPixDevolucao, type ApiPixPix } from '../src/testing/index.js';
import { randomSource } from '../src/testing/seeded-random.js';
import { UsageError } from './shared/cli-args.js';
import { jsonText } from './shared/json-text.js';

export const apiPixSendFlags = {
  profile: { type: 'string', default: 'gateway' },
  count: { type: 'string' },
  shape: { type: 'string' },
  refund: { type: 'string' },
  txid: { type: 'string' },
  chave: { type: 'string' },
  cert: { type: 'string' },
  key: { type: 'string' },
  cacert: { type: 'string' },
} as const;

export const apiPixSendFlagsHelp = [
  {
    flag: '--profile <p>',
    meaning:
      'gateway (a signed event), api-pix (a standard API Pix call to <url>/pix), or a PSP: mercado-pago, asaas, pagbank, woovi (signed with --key <private key PEM>) or pagarme (the --secret, required, goes in the URL), its payment webhook signed as the PSP signs (default gateway)',
  },
  { flag: '--count <n>', meaning: 'api-pix: Pix grouped in the call, 1–1000 (default 1)' },
  { flag: '--shape <s>', meaning: 'api-pix: wrapped ({ "pix": [...] }) or bare (the array alone, as Inter sends) (default wrapped)' },
  {
    flag: '--refund <status>',
    meaning: 'api-pix: each Pix carries one devolução in this status: DEVOLVIDO, NAO_REALIZADO or EM_PROCESSAMENTO',
  },
  { flag: '--txid <id>', meaning: "api-pix: the charge's txid, or none for a Pix without one (default: a generated one)" },
  { flag: '--chave <key>', meaning: 'api-pix: the receiving key (chave) (default: none)' },
  { flag: '--cert <file>', meaning: 'api-pix: the client certificate (PEM) presented for mTLS, with --key' },
  { flag: '--key <file>', meaning: "api-pix: the client certificate's private key (PEM); woovi: the RSA private key (PEM) that signs" },
  { flag: '--cacert <file>', meaning: "https: the CA (PEM) that signed the receiver's server certificate (default: the system's)" },
];

const refundStatuses: readonly ApiPixDevolucao['status'][] = ['DEVOLVIDO', 'NAO_REALIZADO', 'EM_PROCESSAMENTO'];
const maxCount = 1000;

interface ApiPixSendValues {
  count?: string | undefined;
  shape?: string | undefined;
  refund?: string | undefined;
  txid?: string | undefined;
  chave?: string | undefined;
  id?: string | undefined;
  amount?: number | undefined;
  seed?: number | undefined;
}

/** The standard body and its one-line description (ids JSON-escaped: a newline in them cannot forge a line). */
export function apiPixCallFrom(values: ApiPixSendValues): { body: string; label: string } {
  const count = values.count === undefined ? 1 : Number(values.count);
  if (values.count !== undefined && (!/^\d+$/.test(values.count) || count < 1 || count > maxCount))
    throw new UsageError(`--count must be an integer from 1 to ${maxCount}, got ${jsonText(values.count)}`);
  const shape = values.shape ?? 'wrapped';
  if (shape !== 'wrapped' && shape !== 'bare') throw new UsageError(`--shape must be wrapped or bare, got ${jsonText(shape)}`);
  const refund = values.refund;
  if (refund !== undefined && !refundStatuses.includes(refund as ApiPixDevolucao['status']))
    throw new UsageError(`--refund must be ${refundStatuses.join(', ')}, got ${jsonText(refund)}`);
  if (count > 1 && values.id !== undefined) throw new UsageError('--id names one Pix: drop it with --count above 1');
  if (values.txid === '') throw new UsageError('--txid must not be empty (leave it out for a generated one)');
  const random = randomSource(values.seed);
  const items: ApiPixPix[] = [];
  for (let i = 0; i < count; i++) {
    const amountInCents = values.amount ?? 1000;
    items.push(
      apiPixPix({
        random,
        amountInCents,
        ...(values.id !== undefined && { endToEndId: values.id }),
        // `none`: a Pix without a txid (a static QR code, a key transfer).
        ...(values.txid !== undefined && { txid: values.txid === 'none' ? null : values.txid }),
        ...(values.chave !== undefined && { key: values.chave }),
        ...(refund !== undefined && {
          devolucoes: [apiPixRefund({ random, amountInCents, status: refund as ApiPixDevolucao['status'] })],
        }),
      }),
    );
  }
  const what = refund === undefined ? 'Pix' : `Pix with a devolução ${refund}`;
  const first = items[0]!;
  const ids = count === 1 ? `, ${jsonText(first.endToEndId)}, ${jsonText(first.txid ?? null)}` : '';
  return { body: apiPixBody(items, { shape }), label: `API Pix call (${count} ${what}, ${shape}${ids})` };
}

/** `{webhookUrl}/pix`, as a PSP calls it, with the URL secret in the query when one is used. */
export function apiPixUrl(url: string, secret: string | undefined): string {
  const target = new URL(url);
  target.pathname = `${target.pathname.replace(/\/+$/, '')}/pix`;
  if (secret !== undefined) target.searchParams.set('secret', secret);
  return target.href;
}

/** What each refusal of an API Pix receiver means for the caller: the real cause, named by the answer's reason. */
