/**
 * The identity a client certificate claims, as RFC 6125 (§6.4.4) reads it: its DNS subject alternative
 * names when it has any, and its subject CN only when it has none. A certificate with CN=webhook.psp.example
 * and SAN=attacker.example is `attacker.example`.
 */
export function certificateIdentity(
  subjectName: string | undefined,
  altNames: string | undefined,
): { from: 'DNS SAN' | 'CN'; names: string[] } {
  const dns = dnsAltNames(altNames ?? '');
  // A DNS entry that cannot be read still means the certificate has DNS SANs: the CN is never read then.
  if (dns !== undefined) return { from: 'DNS SAN', names: dns };
  return { from: 'CN', names: subjectName === undefined || subjectName === '' ? [] : [subjectName] };
}

/**
 * The `DNS:` entries of Node's `subjectaltname` (`DNS:a.example, IP Address:127.0.0.1, DNS:b.example`).
 * Node writes a value holding a separator or a quote as a JSON string (`DNS:"a, DNS:b"`), so it is read as
 * one value, never split into a forged entry.
 */
function dnsAltNames(text: string): string[] | undefined {
  const names: string[] = [];
  let any = false;
  let at = 0;
  while (at < text.length) {
    const colon = text.indexOf(':', at);
    if (colon === -1) break;
    const type = text.slice(at, colon).trim();
    let value: string | undefined;
    let end: number;
    if (text[colon + 1] === '"') {
      let close = colon + 2;
      while (close < text.length && text[close] !== '"') close += text[close] === '\\' ? 2 : 1;
      end = close + 1;
      value = jsonString(text.slice(colon + 1, end));
    } else {
      const separator = text.indexOf(', ', colon);
      end = separator === -1 ? text.length : separator;
      value = text.slice(colon + 1, end);
    }
    if (type === 'DNS') any = true;
    if (type === 'DNS' && value !== undefined && value !== '') names.push(value.toLowerCase());
    if (!text.startsWith(', ', end)) break;
    at = end + 2;
  }
  return any ? names : undefined;
}

function jsonString(quoted: string): string | undefined {
  try {
    const value: unknown = JSON.parse(quoted);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
