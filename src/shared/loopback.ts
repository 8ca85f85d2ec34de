/** A loopback address or host name (`127.0.0.0/8`, `::1`, `localhost`), with or without a port. Never throws. */
export function isLoopback(hostOrAddress: string): boolean {
  let host = hostOrAddress.trim().toLowerCase();
  if (host.startsWith('[')) host = host.slice(1, host.indexOf(']'));
  else if (/^[^:]+:\d+$/.test(host)) host = host.slice(0, host.lastIndexOf(':'));
  if (host.startsWith('::ffff:')) host = host.slice(7);
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** A `Host` header a URL can be built on: a name or address and an optional port, nothing else (no `user@`, no path). */
export function isPlainHost(host: string): boolean {
  return /^(?:[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?|\[[0-9a-f:.]{2,45}\])(?::\d{1,5})?$/i.test(host);
}

/** Request headers a proxy adds: a request carrying one did not come straight from this machine. The first found, or undefined. */
export function forwardedBy(headers: Headers): string | undefined {
  let found: string | undefined;
  headers.forEach((_value, name) => {
    const lower = name.toLowerCase();
    if (found === undefined && (lower === 'forwarded' || lower === 'via' || lower.startsWith('x-forwarded-') || lower === 'x-real-ip'))
      found = lower;
  });
  return found;
}
