import { randomUUID } from 'node:crypto';
import { signPagBank } from '../../sources/pagbank/sign.js';
import type { PspCharge, PspProfile } from './psp-profile.js';
import { credential } from './psp-credentials.js';

const minute = 60_000;

/**
 * PagBank (developer.pagbank.com.br/reference/webhooks, …/confirmar-autenticidade-da-notificacao): the order
 * as the API returns it, its `charges[]` carrying the Pix, `x-authenticity-token` = SHA-256 of
 * `<token>-<raw body>` (the sources' own signer). No confirmation is needed. A refund is the order again, its
 * charge `CANCELED` with `amount.summary.refunded`. The pages found document no
 * retry schedule: the emulator retries after 1, 5, 15 and 60 minutes (its own choice).
 */
export function pagbankProfile(given: Readonly<Record<string, string>>): PspProfile {
  const credentials = { token: credential(given, 'token') };

  function record(charge: PspCharge): Record<string, unknown> {
    const paid = charge.status !== 'pending';
    const value = paid ? (charge.paidInCents ?? charge.amountInCents) : charge.amountInCents;
    // A refund cancels the charge: CANCELED with amount.summary.refunded (what the PagBank source reads as refunded).
    const refunded = charge.status === 'refunded' ? value : 0;
    return {
      id: `ORDE_${charge.id.slice(5)}`,
      reference_id: `order-${charge.id.slice(5, 13)}`,
      created_at: charge.createdAt,
      customer: { name: 'Pagador Emulado', email: 'pagador@example.com', tax_id: charge.payerDocument },
      charges: [
        {
          id: charge.id,
          status: { pending: 'WAITING', paid: 'PAID', refunded: 'CANCELED', disputed: 'PAID' }[charge.status],
          created_at: charge.createdAt,
          ...(paid && { paid_at: charge.paidAt }),
          amount: { value, currency: 'BRL', summary: { total: charge.amountInCents, paid: paid ? value : 0, refunded } },
          payment_method: {
            type: 'PIX',
            pix: {
              ...(charge.endToEndId !== undefined && { end_to_end_id: charge.endToEndId }),
              holder: { name: 'Pagador Emulado', tax_id: charge.payerDocument },
            },
          },
        },
      ],
      notification_urls: [],
    };
  }

  return {
    name: 'pagbank',
    credentials,
    chargeId: () => `CHAR_${randomUUID().toUpperCase()}`,
    record,
    async webhook(charge) {
      const body = JSON.stringify(record(charge));
      return { query: '', headers: { 'x-authenticity-token': await signPagBank({ token: credentials.token, body }) }, body };
    },
    // A refund (`POST /charges/{id}/cancel` on a paid charge): the order again, its charge CANCELED with
    // summary.refunded. The pages found document no Pix dispute webhook: none is played.
    plays: ['refund'],
    retryScheduleMs: [minute, 5 * minute, 15 * minute, 60 * minute],
  };
}
