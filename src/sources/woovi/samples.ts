// Woovi's documented body: developers.woovi.com/docs/webhook/examples/webhook-charge-payload (and the
// body of webhook-signature-validation's example), `OPENPIX:CHARGE_COMPLETED`, value in cents.

export const wooviChargeCompleted = {
  event: 'OPENPIX:CHARGE_COMPLETED',
  charge: {
    status: 'COMPLETED',
    customer: {
      name: 'Antonio Victor',
      taxID: { taxID: '12345678976', type: 'BR:CPF' },
      email: 'antoniocliente@example.com',
      correlationID: '4979ceba-2132-4292-bd90-bee7fb2125e4',
    },
    value: 1000,
    comment: 'Pagamento OpenPix',
    transactionID: 'ea83401ed4834b3ea6f1f283b389af29',
    correlationID: '417bae21-3d08-4cdb-9c2d-fee63c89e9e4',
    paymentLinkID: '34697ed2-3790-4b60-8512-e7465b142d84',
    createdAt: '2021-03-12T12:43:54.528Z',
    updatedAt: '2021-03-12T12:44:09.360Z',
    paidAt: '2021-03-12T12:44:09.360Z',
  },
  pix: {
    customer: { name: 'Antonio Victor', taxID: { taxID: '12345678976', type: 'BR:CPF' } },
    payer: { name: 'Antonio Victor', taxID: { taxID: '12345678976', type: 'BR:CPF' } },
    time: '2021-03-12T12:44:09.269Z',
    value: 1000,
    transactionID: 'ea83401ed4834b3ea6f1f283b389af29',
    endToEndId: 'E18236120202103121244s0152c8f2f3',
    infoPagador: 'OpenPix testing',
  },
  company: { id: '624f46f9e93f9f521c3ba21d', name: 'Woovi' },
  account: {},
} as const;

/** `OPENPIX:TRANSACTION_RECEIVED`: a Pix to the key or a static QR code, no charge. */
export const wooviTransactionReceived = {
  event: 'OPENPIX:TRANSACTION_RECEIVED',
  pix: {
    time: '2021-03-12T12:44:09.269Z',
    value: 250,
    transactionID: '9134e286-6f71-427a-bf00-241681624586',
    endToEndId: 'E18236120202103121244s0999aaaaaa',
    payer: { name: 'Maria', taxID: { taxID: '98765432100', type: 'BR:CPF' } },
  },
} as const;
