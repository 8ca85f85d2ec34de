// Payloads exactly as the interface documents them (Variant A, Variant B, the short B form, transfers).
export const variantAPaid = {
  event: 'transaction_paid',
  timestamp: '2026-11-22T12:00:00.000Z',
  data: {
    id: 'tx_a_0001',
    status: 'paid',
    amountInCents: 15990,
    netAmountInCents: 15510,
    customer: { name: 'Maria da Silva' },
  },
};

export const variantBPaid = {
  id: 'tx_b_0001',
  type: 'transaction',
  event: 'transaction_paid',
  scope: 'postback',
  transaction: {
    id: 'tx_b_0001',
    amount: 2500,
    status: 'paid',
    pix: {
      endToEndId: 'E12345678202611221200abcdefghijk',
      payerInfo: {
        bank: 'Banco Exemplo',
        name: 'João Pereira',
        branch: '0001',
        document: '12345678909',
        account_type: 'CHECKING',
        account_number: '123456-7',
      },
    },
  },
};

export const shortPaid = {
  id: 'tx_s_0001',
  type: 'transaction',
  event: 'transaction_paid',
  transaction: { id: 'tx_s_0001', amount: 990, status: 'paid' },
};

export const variantATransferCompleted = {
  event: 'transfer_completed',
  timestamp: '2026-11-22T12:05:00.000Z',
  data: { id: 'tr_a_0001', status: 'completed', amount: 5000, netAmount: 4950, fees: 50, pixKey: 'loja@example.com' },
};

export const variantBTransferCompleted = {
  id: 'tr_b_0001',
  type: 'transfer',
  event: 'transfer_completed',
  scope: 'user',
  transfer: {
    id: 'tr_b_0001',
    amount: 7000,
    status: 'completed',
    pix: { endToEndId: 'E87654321202611221205zyxwvutsrqp', creditorAccount: { ispb: '87654321' } },
  },
};

export const unknownEvent = { id: 'x_1', type: 'transaction', event: 'transaction_chargeback_opened', extra: true };

export const unicodeName = 'José Ñandú — 支払い 💸';

export const unicodePaid = {
  ...variantAPaid,
  data: { ...variantAPaid.data, id: 'tx_a_unicode', customer: { name: unicodeName } },
};
