// Asaas's documented body: docs.asaas.com/docs/webhook-para-cobrancas ("Eventos para cobranças", the
// example of a PAYMENT_RECEIVED event), here with `billingType: "PIX"`; optional fields arrive as `null`.

export const asaasPaymentReceived = {
  id: 'evt_d26e303b238e509335ac9ba210e51b0f&7686444',
  event: 'PAYMENT_RECEIVED',
  dateCreated: '2024-11-06 18:59:27',
  payment: {
    object: 'payment',
    id: 'pay_6egmyz6lpfxazko3',
    dateCreated: '2024-11-04',
    customer: 'cus_000006326297',
    paymentLink: null,
    value: 42.23,
    netValue: 41.24,
    originalValue: null,
    interestValue: null,
    description: null,
    billingType: 'PIX',
    confirmedDate: '2024-11-06',
    pixTransaction: null,
    status: 'RECEIVED',
    dueDate: '2024-11-09',
    paymentDate: '2024-11-06',
    clientPaymentDate: '2024-11-06',
    installmentNumber: null,
    externalReference: null,
    deleted: false,
    anticipated: false,
    refunds: null,
  },
} as const;
