// Mercado Pago's documented bodies. The notification: mercadopago/devsite-docs
// guides/additional-content/your-integrations/webhooks.en.md ("Webhooks" → the JSON sent for topic payment).
// The payment: the reference of GET /v1/payments/{id} (reference/payments/_payments_id/get), trimmed to the
// fields pixhook reads; a Pix payment (`payment_method_id: "pix"`).

/** The webhook's body: only the id, the state must be fetched. */
export const mercadoPagoNotification = {
  id: 12345,
  live_mode: true,
  type: 'payment',
  date_created: '2015-03-25T10:04:58.396-04:00',
  user_id: 44444,
  api_version: 'v1',
  action: 'payment.created',
  data: { id: '999999999' },
} as const;

/** `GET /v1/payments/999999999`, approved: R$ 10,50. */
export const mercadoPagoPayment = {
  id: 999999999,
  status: 'approved',
  status_detail: 'accredited',
  payment_method_id: 'pix',
  payment_type_id: 'bank_transfer',
  currency_id: 'BRL',
  transaction_amount: 10.5,
  transaction_amount_refunded: 0,
  date_created: '2026-11-27T10:00:00.000-03:00',
  date_approved: '2026-11-27T10:00:05.000-03:00',
  date_last_updated: '2026-11-27T10:00:05.000-03:00',
  external_reference: 'order-1',
  payer: { email: 'test_user@testuser.com', identification: { type: 'CPF', number: '19119119100' } },
  transaction_details: { net_received_amount: 10.4, total_paid_amount: 10.5 },
  point_of_interaction: {
    type: 'PIX',
    transaction_data: { qr_code: '00020126…', ticket_url: 'https://www.mercadopago.com.br/payments/999999999/ticket' },
  },
} as const;
