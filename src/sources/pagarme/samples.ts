// Pagar.me v5's documented bodies: docs.pagar.me/docs/webhooks (a hook: `{ id: "hook_…", type, created_at,
// data }`) and docs.pagar.me/reference/obter-cobranca (the charge `GET /core/v5/charges/{id}` returns),
// a Pix charge, amounts in cents.

export const pagarmeChargePaidHook = {
  id: 'hook_RyEKQO789TRpZjv5',
  account: { id: 'acc_jZkdN857et650oNv', name: 'Lojinha' },
  type: 'charge.paid',
  created_at: '2026-11-27T13:00:05.000Z',
  data: { id: 'ch_d3xG89ktzT1rvWqE', code: 'ORDER-1', amount: 2990, status: 'paid', payment_method: 'pix' },
} as const;

export const pagarmeCharge = {
  id: 'ch_d3xG89ktzT1rvWqE',
  code: 'ORDER-1',
  gateway_id: '1234567',
  amount: 2990,
  paid_amount: 2990,
  status: 'paid',
  currency: 'BRL',
  payment_method: 'pix',
  paid_at: '2026-11-27T13:00:04.000Z',
  created_at: '2026-11-27T12:59:00.000Z',
  updated_at: '2026-11-27T13:00:04.000Z',
  customer: { id: 'cus_Lw7Y4zkTJT7Y1pJ3', name: 'Tony Stark', email: 'tony@example.com', document: '93095135270', type: 'individual' },
  last_transaction: { id: 'tran_KVvXNGvTZfNZYAkQ', transaction_type: 'pix', amount: 2990, status: 'paid', success: true },
} as const;
