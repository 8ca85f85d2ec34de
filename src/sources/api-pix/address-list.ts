import { PixhookConfigError } from '../../shared/pixhook-error.js';

/** One CIDR block (or one address), as 16 bytes: IPv4 is kept as its IPv4-mapped IPv6 form. */
interface Block {
  bytes: Uint8Array;
  prefix: number;
}

/** A list of addresses and CIDR blocks (`10.0.0.0/8`, `::1`, `2001:db8::/32`); matches IPv4-mapped IPv6 peers too. */
interface AddressList {
  has(address: string | undefined): boolean;
}

export function addressList(name: string, value: unknown): AddressList {
  if (!Array.isArray(value) || value.length === 0)
    throw new PixhookConfigError(
      `pixhook: \`${name}\` must be a non-empty list of addresses or CIDR blocks (e.g. ["10.0.0.5", "10.1.0.0/16"]).`,
    );
  const blocks = value.map((entry: unknown, i): Block => {
    const block = typeof entry === 'string' ? parseBlock(entry.trim()) : undefined;
    if (block === undefined)
      throw new PixhookConfigError(`pixhook: \`${name}[${String(i)}]\` must be an IPv4 or IPv6 address, optionally with a /prefix.`);
    return block;
  });
  return {
    has(address) {
      if (address === undefined) return false;
      const bytes = parseAddress(address);
      return bytes !== undefined && blocks.some((block) => inBlock(bytes, block));
    },
  };
}

function parseBlock(text: string): Block | undefined {
  const slash = text.indexOf('/');
  const bytes = parseAddress(slash === -1 ? text : text.slice(0, slash));
  if (bytes === undefined) return undefined;
  const v4 = slash === -1 ? !text.includes(':') : !text.slice(0, slash).includes(':');
  if (slash === -1) return { bytes, prefix: 128 };
  const raw = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(raw)) return undefined;
  const prefix = Number(raw);
  if (prefix > (v4 ? 32 : 128)) return undefined;
  return { bytes, prefix: v4 ? prefix + 96 : prefix };
}

function inBlock(bytes: Uint8Array, block: Block): boolean {
  for (let bit = 0; bit < block.prefix; bit += 8) {
    const left = block.prefix - bit;
    const mask = left >= 8 ? 0xff : (0xff << (8 - left)) & 0xff;
    const i = bit / 8;
    if ((bytes[i]! & mask) !== (block.bytes[i]! & mask)) return false;
  }
  return true;
}

/** 16 bytes, or undefined. A zone (`%eth0`) is dropped; IPv4 becomes `::ffff:a.b.c.d`. */
function parseAddress(text: string): Uint8Array | undefined {
  const zone = text.indexOf('%');
  const address = zone === -1 ? text : text.slice(0, zone);
  if (!address.includes(':')) {
    const v4 = parseV4(address);
    if (v4 === undefined) return undefined;
    const out = new Uint8Array(16);
    out[10] = 0xff;
    out[11] = 0xff;
    out.set(v4, 12);
    return out;
  }
  let head = address;
  let tailV4: Uint8Array | undefined;
  const lastColon = address.lastIndexOf(':');
  if (address.slice(lastColon + 1).includes('.')) {
    tailV4 = parseV4(address.slice(lastColon + 1));
    if (tailV4 === undefined) return undefined;
    head = address.slice(0, lastColon + 1) + '0:0';
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(halves[0]!);
  const right = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - left.length - right.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...right];
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    const group = all[i]!;
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
    const value = parseInt(group, 16);
    out[i * 2] = value >> 8;
    out[i * 2 + 1] = value & 0xff;
  }
  if (tailV4 !== undefined) out.set(tailV4, 12);
  return out;
}

function parseV4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    if (!/^\d{1,3}$/.test(parts[i]!)) return undefined;
    const n = Number(parts[i]);
    if (n > 255) return undefined;
    out[i] = n;
  }
  return out;
}
