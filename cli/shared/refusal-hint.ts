/**
 * The hint after a 401 or 403: the receiver refused the signature or the caller, and sending the same
 * bytes again changes nothing. One text for `send`, `dev`, `listen` and `trigger`.
 */
export function refusalHint(status: number, shown: string): string {
  return `pixhook: the receiver at ${shown} refused the delivery (${status}): check the secret — --secret (or PIXHOOK_SECRET) must be the receiver's webhook secret; \`pixhook dev\` prints the one it generates as PIXHOOK_SECRET=…`;
}

/** What each API Pix refusal reason means for the caller. */
const refusalCauses: Readonly<Record<string, string>> = {
  client_certificate_required: 'it asks for a client certificate: present one with --cert/--key',
  client_certificate_rejected:
    "it refused the client certificate: a pinned name (auth.mtls.names: the certificate's DNS SANs, its CN only without any) or fingerprint, or the CA; the receiver's log names which",
  url_secret_mismatch: "the URL secret does not match: --secret (or PIXHOOK_SECRET) must be the receiver's auth.urlSecret.secret",
  proxy_secret_mismatch:
    "the call did not come through the proxy's mTLS server block: the proxy secret header is missing or wrong (auth.proxy.secret)",
  address_not_allowed:
    'it does not accept calls from the address it sees (auth.proxy.from or auth.urlSecret.allowFrom); behind a proxy, from must be the address the proxy connects from',
};

/** The API Pix profile's: no signature, so the cause the answer's reason names (a certificate, a pin, a secret, the address). */
export function apiPixRefusalHint(status: number, shown: string, body?: string): string {
  let reason: unknown;
  try {
    reason = (JSON.parse(body ?? '') as { error?: unknown }).error;
  } catch {
    reason = undefined;
  }
  const cause =
    typeof reason === 'string' && Object.hasOwn(refusalCauses, reason)
      ? `${reason}: ${refusalCauses[reason]!}`
      : 'check the client certificate (--cert/--key, signed by the CA the receiver trusts) or the URL secret (--secret or PIXHOOK_SECRET)';
  return `pixhook: the receiver at ${shown} refused the call (${String(status)}): ${cause}`;
}
