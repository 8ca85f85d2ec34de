// PagBank's documented body: developer.pagbank.com.br/reference/webhooks (the order as `GET /orders/{id}`
// returns it, sent to the order's `notification_urls`), a Pix order paid: `charges[0].status: "PAID"`,
// amounts in cents.

export const pagbankOrderPaid = {
  id: 'ORDE_F87334AC-BB8B-42E2-AA85-8579F70AA328',
  reference_id: 'ex-00001',
  created_at: '2023-02-08T15:15:11.408-03:00',
  customer: { name: 'Jose da Silva', email: 'email@test.com', tax_id: '12345678909' },
  items: [{ reference_id: 'referencia do item', name: 'nome do item', quantity: 1, unit_amount: 500 }],
  qr_codes: [{ id: 'QRCO_86FE511B-E945-4FE1-BB5B-0F7E3E5A2B2A', amount: { value: 500 }, expiration_date: '2023-02-09T15:15:11.000-03:00' }],
  charges: [
    {
      id: 'CHAR_3B5E7B9A-2E4B-4F1D-8C3E-1D2F3A4B5C6D',
      reference_id: 'ex-00001',
      status: 'PAID',
      created_at: '2023-02-08T15:16:02.000-03:00',
      paid_at: '2023-02-08T15:16:03.000-03:00',
      amount: { value: 500, currency: 'BRL', summary: { total: 500, paid: 500, refunded: 0 } },
      payment_response: { code: '20000', message: 'SUCESSO' },
      payment_method: {
        type: 'PIX',
        pix: {
          notification_id: 'NTF_1',
          end_to_end_id: 'E18236120202302081816s0152c8f2f3',
          holder: { name: 'Jose da Silva', tax_id: '***456789**' },
        },
      },
    },
  ],
  notification_urls: ['https://meusite.com/notificacoes'],
} as const;
