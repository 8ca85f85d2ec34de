// The two bodies every subject verifies and parses, byte for byte the same for all of them.
import { createHmac } from 'node:crypto';
import { buildPayload } from 'pixhook/testing';

export const secret = 'whsec_bench_4f1c2b7e9a0d';

/** ~400 bytes: a Variant B `transaction_paid` with payer details, as the gateway sends it. */
function variantB() {
  return buildPayload('transaction_paid', { variant: 'b', seed: 7 });
}

/** ~8 KB: a Variant A `transaction_paid` padded with what merchants attach (items, metadata) inside `data`, which the schema ignores. */
function variantA() {
  const payload = buildPayload('transaction_paid', { variant: 'a', seed: 7 });
  const items = [];
  for (let i = 0; items.length < 40; i++) {
    items.push({
      sku: `SKU-${String(100000 + i * 7919).slice(0, 6)}`,
      title: `Produto de exemplo número ${i + 1} — camiseta algodão orgânico`,
      quantity: (i % 3) + 1,
      unitPriceInCents: 1990 + i * 137,
      tags: ['vestuário', 'promoção'],
    });
  }
  payload.data = {
    ...payload.data,
    description: 'Pedido #48213 — loja virtual',
    metadata: { orderId: 'ord_48213', channel: 'checkout-web', utm_source: 'newsletter', cartId: 'cart_9f8e7d6c5b4a' },
    items,
  };
  return payload;
}

function signed(payload, targetBytes) {
  let text = JSON.stringify(payload);
  // Trim or pad the free-text description so the size is the advertised one.
  if (targetBytes !== undefined && payload.data?.description !== undefined) {
    while (Buffer.byteLength(text) < targetBytes) {
      payload.data.description += ' ';
      text = JSON.stringify(payload);
    }
    while (Buffer.byteLength(text) > targetBytes && payload.data.items.length > 1) {
      payload.data.items.pop();
      text = JSON.stringify(payload);
    }
  }
  const bytes = Buffer.from(text);
  const digest = createHmac('sha256', secret).update(bytes).digest('hex');
  return { payload, text, bytes, signature: `sha256=${digest}`, digest };
}

export const bodies = {
  b350: { label: 'Variant B transaction_paid', ...signed(variantB()) },
  a8k: { label: 'Variant A transaction_paid + items', ...signed(variantA(), 8192) },
};

/** The headers every route of the adapter benches gets: pixhook's X-Signature and octokit's GitHub headers (same HMAC). */
export function routeHeaders(body) {
  return {
    'content-type': 'application/json',
    'x-signature': body.signature,
    'x-hub-signature-256': body.signature,
    'x-github-event': 'push',
    'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
  };
}
