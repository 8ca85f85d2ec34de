// The BR Code (EMV® QRCPS-MPM as the Banco Central do Brasil profiles it for PIX).

function field(id: string, value: string): string {
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/** CRC16/CCITT-FALSE (poly 0x1021, init 0xFFFF), as 4 upper-case hex digits. */
export function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of new TextEncoder().encode(text)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

export interface EmvCodeInput {
  /** The receiving PIX key. */
  pixKey: string;
  amountInCents: number;
  /** At most 25 characters. */
  merchantName: string;
  /** At most 15 characters. */
  merchantCity: string;
  /** Transaction id: letters and digits, at most 25. */
  txid: string;
}

// EMV fields forbid most non-ASCII; names and cities are written without accents.
function ascii(text: string, max: number): string {
  return text
    .normalize('NFD')
    .replace(/[^\x20-\x7e]/g, '')
    .slice(0, max);
}

/** The copy-and-paste code of a single-use charge, CRC included. */
export function buildEmvCode(input: EmvCodeInput): string {
  const txid = input.txid.replace(/[^A-Za-z0-9]/g, '').slice(0, 25) || '***';
  return brCode(field('00', 'br.gov.bcb.pix') + field('01', input.pixKey), txid, input);
}

/** A dynamic charge of the standard API Pix (cob, cobv): where the payer's app reads it, instead of a key. */
interface DynamicEmvCodeInput {
  /** The payload location without its scheme (`pix.psp.example/qr/v2/…`), at most 77 characters. */
  location: string;
  amountInCents: number;
  merchantName: string;
  merchantCity: string;
}

/**
 * The `pixCopiaECola` of a dynamic charge as the standard has it: the payer's app reads the location (field 26,
 * sub-field 25) and fetches the charge from there; the txid stays `***` in the code. CRC included.
 */
export function buildDynamicEmvCode(input: DynamicEmvCodeInput): string {
  return brCode(field('00', 'br.gov.bcb.pix') + field('25', input.location.slice(0, 77)), '***', input);
}

function brCode(account: string, txid: string, input: { amountInCents: number; merchantName: string; merchantCity: string }): string {
  const payload =
    field('00', '01') +
    field('01', '12') +
    field('26', account) +
    field('52', '0000') +
    field('53', '986') +
    field('54', (input.amountInCents / 100).toFixed(2)) +
    field('58', 'BR') +
    field('59', ascii(input.merchantName, 25)) +
    field('60', ascii(input.merchantCity, 15)) +
    field('62', field('05', txid)) +
    '6304';
  return payload + crc16(payload);
}

/** Reads the top-level fields of an EMV code (`{ '00': '01', '54': '19.90', … }`). */
export function parseEmvFields(code: string): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i + 4 <= code.length) {
    const id = code.slice(i, i + 2);
    const length = Number(code.slice(i + 2, i + 4));
    out[id] = code.slice(i + 4, i + 4 + length);
    i += 4 + length;
  }
  return out;
}
