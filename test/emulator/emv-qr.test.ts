import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildEmvCode, crc16, parseEmvFields, qrMatrix, qrPng } from '../../src/emulator/index.js';

describe('BR Code (EMV)', () => {
  it('computes CRC16/CCITT-FALSE', () => {
    expect(crc16('123456789')).toBe('29B1');
  });

  it('builds a code a bank app can read: fields, amount, key and a CRC over the rest', () => {
    const code = buildEmvCode({
      pixKey: 'ana@example.com',
      amountInCents: 12345,
      merchantName: 'Loja São João',
      merchantCity: 'São Paulo',
      txid: 'txn_abc-123',
    });
    const fields = parseEmvFields(code);
    expect(fields).toMatchObject({
      '00': '01',
      '01': '12',
      '52': '0000',
      '53': '986',
      '54': '123.45',
      '58': 'BR',
      '59': 'Loja Sao Joao',
      '60': 'Sao Paulo',
    });
    expect(parseEmvFields(fields['26'] as string)).toEqual({ '00': 'br.gov.bcb.pix', '01': 'ana@example.com' });
    expect(parseEmvFields(fields['62'] as string)).toEqual({ '05': 'txnabc123' });
    expect(code.slice(-8, -4)).toBe('6304');
    expect(code.slice(-4)).toBe(crc16(code.slice(0, -4)));
  });
});

describe('QR code PNG', () => {
  it('is a PNG whose pixels are the QR matrix, with a 4-module quiet zone', async () => {
    const text = buildEmvCode({ pixKey: 'ana@example.com', amountInCents: 100, merchantName: 'Loja', merchantCity: 'Recife', txid: 't1' });
    const matrix = await qrMatrix(text);
    const png = await qrPng(text, { scale: 2, margin: 4 });
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    const side = png.readUInt32BE(16);
    expect(side).toBe((matrix.length + 8) * 2);
    const idatLength = png.readUInt32BE(33);
    expect(png.subarray(37, 41).toString('ascii')).toBe('IDAT');
    const raw = inflateSync(png.subarray(41, 41 + idatLength));
    expect(raw.length).toBe((side + 1) * side);
    const pixel = (x: number, y: number) => raw[y * (side + 1) + 1 + x];
    for (let row = 0; row < matrix.length; row++) {
      for (let col = 0; col < matrix.length; col++) {
        expect(pixel((col + 4) * 2, (row + 4) * 2)).toBe(matrix[row]?.[col] ? 0 : 255);
      }
    }
    // A finder pattern's dark corner, and white quiet zone around it.
    expect(matrix[0]?.[0]).toBe(true);
    expect(pixel(0, 0)).toBe(255);
  });
});
