import { describe, expect, it } from 'vitest';
import { createReceiver, metricsToPrometheus } from '../src/index.js';
import { variantAPaid } from './contract/fixtures.js';
import { bytesOf, signBytes } from './helpers/signing.js';

describe('metricsToPrometheus', () => {
  it('renders the receiver counters, rejections by reason and the latency histogram', async () => {
    const receiver = createReceiver({ secret: 's' }).onAny(() => {});
    const body = bytesOf(variantAPaid);
    await receiver.receive({ headers: { 'x-signature': signBytes(body, 's') }, body });
    await receiver.receive({ headers: { 'x-signature': signBytes(body, 's') }, body });
    await receiver.receive({ headers: { 'x-signature': signBytes(body, 'forged') }, body });
    const text = metricsToPrometheus(receiver.metrics(), { prefix: 'shop_pix' });
    const sample = (line: string) =>
      text
        .split('\n')
        .find((l) => l.startsWith(`${line} `))
        ?.split(' ')[1];
    expect(sample('shop_pix_received_total')).toBe('3');
    expect(sample('shop_pix_handled_total')).toBe('1');
    expect(sample('shop_pix_duplicates_total')).toBe('1');
    expect(sample('shop_pix_rejected_total{reason="signature_mismatch"}')).toBe('1');
    expect(sample('shop_pix_ack_latency_ms_bucket{le="+Inf"}')).toBe('3');
    expect(sample('shop_pix_ack_latency_ms_count')).toBe('3');
    expect(text).toMatch(/^# TYPE shop_pix_ack_latency_ms histogram$/m);
    // Every sample line is `name{labels} value` with a numeric value.
    for (const line of text
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith('#')))
      expect(line).toMatch(/^[a-z_]+(\{[^}]*\})? \d+(\.\d+)?(e-?\d+)?$/);
  });
});
