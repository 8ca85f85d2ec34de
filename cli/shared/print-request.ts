// `pixhook send --print`: the request `send` would make, captured at its fetch and printed instead of sent.

/**
 * Header values that carry credentials: printed masked (a signature is not one: it is made from the secret, never
 * it). Asaas's `asaas-access-token` is the webhook's token itself.
 */
const masked = new Set(['authorization', 'proxy-authorization', 'cookie']);
const tokens = new Set(['asaas-access-token']);

/** A fetch that sends nothing: it keeps the request and answers 200, so the sender stops after one attempt. */
export function capturingFetch(): {
  fetch: typeof globalThis.fetch;
  captured(): { method: string; headers: Headers; body: Uint8Array } | undefined;
} {
  let captured: { method: string; headers: Headers; body: Uint8Array } | undefined;
  return {
    captured: () => captured,
    fetch: async (_input, init) => {
      const body = init?.body;
      captured = {
        method: init?.method ?? 'GET',
        headers: new Headers(init?.headers),
        body: body instanceof Uint8Array ? body : new TextEncoder().encode(typeof body === 'string' ? body : ''),
      };
      return new Response('', { status: 200 });
    },
  };
}

/**
 * `POST <url>`, one `name: value` line per header (sorted; credentials masked), a blank line, then the body
 * byte for byte and one newline. The URL is printed as given with its secrets masked (`?secret=***`).
 */
export function requestText(request: { method: string; headers: Headers; body: Uint8Array }, shownUrl: string): Uint8Array {
  const pairs: [string, string][] = [];
  request.headers.forEach((value, name) => pairs.push([name, value]));
  const headers = pairs
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `${name}: ${tokens.has(name) ? '***' : masked.has(name) ? `${value.split(' ')[0]} ***` : value}`);
  const head = new TextEncoder().encode(`${request.method} ${shownUrl}\n${headers.join('\n')}\n\n`);
  return Buffer.concat([head, request.body, Buffer.from('\n')]);
}
