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

// The refund and chargeback events of the same page ("Eventos para cobranças": PAYMENT_REFUNDED,
// PAYMENT_CHARGEBACK_REQUESTED, PAYMENT_CHARGEBACK_DISPUTE, PAYMENT_AWAITING_CHARGEBACK_REVERSAL). The page
// publishes one example body and says every payment event sends that shape: these are it with the event's
// name and the payment's status (the `status` values of a payment in the API reference: REFUNDED,
// CHARGEBACK_REQUESTED, CHARGEBACK_DISPUTE, AWAITING_CHARGEBACK_REVERSAL). No example of these bodies is published as such.
function asaasPaymentEvent<E extends string, S extends string>(event: E, status: S, sequence: number) {
  return {
    ...asaasPaymentReceived,
    id: `evt_d26e303b238e509335ac9ba210e51b0f&768645${String(sequence)}`,
    event,
    dateCreated: '2024-11-12 10:02:41',
    payment: { ...asaasPaymentReceived.payment, status },
  } as const;
}

export const asaasPaymentRefunded = asaasPaymentEvent('PAYMENT_REFUNDED', 'REFUNDED', 1);
export const asaasChargebackRequested = asaasPaymentEvent('PAYMENT_CHARGEBACK_REQUESTED', 'CHARGEBACK_REQUESTED', 2);
export const asaasChargebackDispute = asaasPaymentEvent('PAYMENT_CHARGEBACK_DISPUTE', 'CHARGEBACK_DISPUTE', 3);
export const asaasAwaitingChargebackReversal = asaasPaymentEvent('PAYMENT_AWAITING_CHARGEBACK_REVERSAL', 'AWAITING_CHARGEBACK_REVERSAL', 4);
