import type { MaybePromise } from '../../shared/maybe-promise.js';
import { hmacSha256Hex } from '../shared/crypto.js';

/**
 * Mercado Pago's signed manifest: `id:<data.id>;request-id:<x-request-id>;ts:<ts>;`, a part that is missing
 * left out (mercadopago/devsite-docs guides/additional-content/your-integrations/webhooks: "If any of the
 * values presented in the example is not present in the notification, you must remove them"). `data.id`
 * is the query string's, its case kept: Orders API ids (`ORD…`) are upper case (sdk-java #420; sdk-nodejs
 * #439 removed the lower-casing). The verifier and the test kit's signer both build it here.
 */
export function mercadoPagoManifest(dataId: string | undefined, requestId: string | undefined, ts: string | undefined): string {
  let manifest = '';
  if (dataId !== undefined) manifest += `id:${dataId};`;
  if (requestId !== undefined) manifest += `request-id:${requestId};`;
  if (ts !== undefined) manifest += `ts:${ts};`;
  return manifest;
}

/** `v1`: HMAC-SHA256 (hex) of the manifest with the webhook's secret. */
export function mercadoPagoV1(secret: string, manifest: string): MaybePromise<string> {
  return hmacSha256Hex(secret, manifest);
}

/** What the test kit's `signMercadoPago` returns: the two headers and the query to send. */
export interface MercadoPagoSigned {
  headers: { 'x-signature': string; 'x-request-id': string };
  /** `?data.id=<id>&type=payment`: where Mercado Pago puts the id it signs. */
  query: string;
}

/** Signs as Mercado Pago does: `x-signature: ts=<seconds>,v1=<hex>` over the manifest, `x-request-id`. */
export async function signMercadoPago(input: {
  secret: string;
  dataId: string;
  requestId?: string;
  /** Seconds since the epoch (Mercado Pago's examples are in seconds). Default now. */
  ts?: number | string;
}): Promise<MercadoPagoSigned> {
  const ts = String(input.ts ?? Math.floor(Date.now() / 1000));
  const requestId = input.requestId ?? globalThis.crypto.randomUUID();
  const v1 = await mercadoPagoV1(input.secret, mercadoPagoManifest(input.dataId, requestId, ts));
  return {
    headers: { 'x-signature': `ts=${ts},v1=${v1}`, 'x-request-id': requestId },
    query: `?data.id=${encodeURIComponent(input.dataId)}&type=payment`,
  };
}
