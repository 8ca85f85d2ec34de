import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiPixClient } from '../../src/api-pix/index.js';
import { crc16, parseEmvFields, type ApiPixEmulator } from '../../src/emulator/index.js';
import { clientFor, startApiPix, txid } from './emulator-setup.js';

// Issue 37: "The API Pix emulator's cob answers carry no pixCopiaECola (the spec's CobGerada has it), so the
// client's pixCopyPaste is always empty against it." Now each cob answer carries the BR Code of a dynamic
// charge, as the spec's examples: the location in field 26 (sub-field 25), the amount, txid `***`, and a valid CRC.
let emulator: ApiPixEmulator;
let client: ApiPixClient;

beforeAll(async () => {
  emulator = await startApiPix();
  client = clientFor(emulator);
});
afterAll(async () => {
  client?.close();
  await emulator?.close();
});

/** The CRC16 of everything before it (the `6304` tag included) is its last four characters. */
function crcHolds(code: string): boolean {
  return code.slice(-4) === crc16(code.slice(0, -4)) && code.slice(-8, -4) === '6304';
}

describe('the API Pix emulator: pixCopiaECola', () => {
  it('createCharge and getCharge fill pixCopyPaste with a BR Code whose CRC holds and that points at the location', async () => {
    const created = await client.createCharge({ txid: txid('emv1'), amountInCents: 1990 });
    const code = created.pixCopyPaste;
    expect(code).toBeDefined();
    expect(crcHolds(code!)).toBe(true);
    const fields = parseEmvFields(code!);
    expect(fields).toMatchObject({ '00': '01', '01': '12', '52': '0000', '53': '986', '54': '19.90', '58': 'BR', '62': '0503***' });
    const account = parseEmvFields(fields['26']!);
    expect(account['00']).toBe('br.gov.bcb.pix');
    expect(account['25']).toBe(created.location);
    // Read again, the same code.
    expect((await client.getCharge(txid('emv1'))).pixCopyPaste).toBe(code);
  });

  it('a changed byte breaks its CRC (the check above is a real one)', async () => {
    const code = (await client.createCharge({ txid: txid('emv2'), amountInCents: 500 })).pixCopyPaste!;
    expect(parseEmvFields(code)['54']).toBe('5.00');
    expect(crcHolds(code.replace('5.00', '6.00'))).toBe(false);
  });
});
