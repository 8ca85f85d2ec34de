/**
 * The hint after a 401 or 403: the receiver refused the signature or the caller, and sending the same
 * bytes again changes nothing. One text for `send`, `dev`, `listen` and `trigger`.
 */
export function refusalHint(status: number, shown: string): string {
  return `pixhook: the receiver at ${shown} refused the delivery (${status}): check the secret — --secret (or PIXHOOK_SECRET) must be the receiver's webhook secret; \`pixhook dev\` prints the one it generates as PIXHOOK_SECRET=…`;
}

/** The API Pix profile's: no signature, so the client certificate or the URL secret. */
export function apiPixRefusalHint(status: number, shown: string): string {
  return `pixhook: the receiver at ${shown} refused the call (${status}): check the client certificate (--cert/--key, signed by the CA the receiver trusts) or the URL secret (--secret or PIXHOOK_SECRET)`;
}
