// Payloads shaped like the gateway family's published samples: `null` for absent fields, sibling brands'
// extra transaction fields, a documented transfer whose creditorAccount is null.

export const samplePaidA = {
  event: 'transaction_paid',
  timestamp: '2026-11-22T12:00:00.000Z',
  data: {
    id: 'tx_a_0001',
    status: 'paid',
    amountInCents: 1,
    netAmountInCents: -49,
    fees: 50,
    customer: {
      name: 'Maria da Silva',
      email: 'maria@example.com.br',
      document: '12345678909',
      documentType: 'cpf',
      phone: '+5511999990000',
    },
    endToEndId: 'E12345678202611221200abcdefghijk',
    refund: null,
    pix: null,
    payerInfo: null,
  },
};

export const samplePaidB = {
  id: 'tx_b_0001',
  type: 'transaction',
  event: 'transaction_paid',
  scope: 'postback',
  transaction: {
    id: 'tx_b_0001',
    amount: 2500,
    status: 'paid',
    netAmount: 2475,
    fees: 25,
    customer: { name: 'João Pereira', email: 'joao@example.com.br', document: '98765432100', phone: null },
    refund: null,
    pix: {
      endToEndId: 'E12345678202611221200abcdefghijk',
      payerInfo: {
        bank: 'Banco Exemplo',
        name: 'João Pereira',
        branch: '0001',
        document: '98765432100',
        account_type: 'CHECKING',
        account_number: '123456-7',
      },
    },
  },
};

export const sampleCreatedB = {
  id: 'tx_b_0002',
  type: 'transaction',
  event: 'transaction_created',
  scope: 'user',
  transaction: { id: 'tx_b_0002', amount: 990, status: 'pending', netAmount: null, fees: null, customer: null, refund: null, pix: null },
};

export const sampleTransferCompletedB = {
  id: 'tr_b_0001',
  type: 'transfer',
  event: 'transfer_completed',
  scope: 'postback',
  transfer: {
    id: 'tr_b_0001',
    amount: 7000,
    status: 'completed',
    fees: null,
    pixKey: null,
    pix: { endToEndId: 'E87654321202611221205zyxwvutsrqp', creditorAccount: null },
  },
};

export const sampleTransferA = {
  event: 'transfer_completed',
  timestamp: '2026-11-22T12:05:00.000Z',
  data: {
    id: 'tr_a_0001',
    status: 'completed',
    amount: 5000,
    netAmount: 4950,
    fees: 50,
    pixKey: 'loja@example.com',
    endToEndId: 'E87654321202611221205zyxwvutsrqp',
    creditorAccount: { ispb: '87654321', branch: '0001', accountNumber: '99999-1', name: 'Loja Ltda' },
  },
};
