import { crc32, deflateSync } from 'node:zlib';

type QrFactory = typeof import('qrcode-generator');
let encoder: Promise<QrFactory> | undefined;

// Loaded at the first QR code: importing `pixhook/emulator` (or the CLI) without drawing one never pays for it.
function loadEncoder(): Promise<QrFactory> {
  encoder ??= import('qrcode-generator').then((module) => (module as { default: QrFactory }).default);
  return encoder;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

interface QrPngOptions {
  /** Pixels per module. Default 4. */
  scale?: number;
  /** Quiet zone in modules. Default 4 (the standard's minimum). */
  margin?: number;
}

/** The QR matrix of `text` (byte mode, error correction M): `true` is a dark module. */
export async function qrMatrix(text: string): Promise<boolean[][]> {
  const qrcode = await loadEncoder();
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  const size = qr.getModuleCount();
  return Array.from({ length: size }, (_, row) => Array.from({ length: size }, (_, col) => qr.isDark(row, col)));
}

/** A black-on-white 8-bit grayscale PNG of the QR code of `text`. */
export async function qrPng(text: string, options: QrPngOptions = {}): Promise<Buffer> {
  const scale = options.scale ?? 4;
  const margin = options.margin ?? 4;
  const matrix = await qrMatrix(text);
  const side = (matrix.length + 2 * margin) * scale;
  const raw = Buffer.alloc((side + 1) * side, 0xff);
  for (let y = 0; y < side; y++) {
    raw[y * (side + 1)] = 0; // filter type: none
    const row = matrix[Math.floor(y / scale) - margin];
    if (!row) continue;
    for (let x = 0; x < side; x++) {
      if (row[Math.floor(x / scale) - margin]) raw[y * (side + 1) + 1 + x] = 0;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // grayscale
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** `data:image/png;base64,…` of the QR code of `text`. */
export async function qrPngDataUri(text: string): Promise<string> {
  return `data:image/png;base64,${(await qrPng(text)).toString('base64')}`;
}
