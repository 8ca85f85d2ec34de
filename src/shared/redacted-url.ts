// Query parameters that commonly carry a credential (`?token=`, `?api_key=`, `?sig=` …).
const secretParameter = /([?&][^=&#]*(?:token|secret|pass|pwd|key|sig|auth|credential)[^=&#]*=)[^&#]*/gi;

/**
 * Any URL made fit to print: its password (`user:***@host`) and the values of query parameters that
 * look like credentials are masked; everything else is kept as written. A URL that does not parse
 * is masked too: whatever lies between `//` and its last `@` is taken for credentials.
 * Escaping is the printer's job (`jsonText`).
 */
export function redactedUrl(url: string): string {
  const start = url.indexOf('//');
  if (start === -1) return url.replace(secretParameter, '$1***');
  const rest = url.slice(start + 2);
  const queryAt = rest.search(/[?#]/);
  const beforeQuery = queryAt === -1 ? rest : rest.slice(0, queryAt);
  // WHATWG: the authority ends at the first `/`, `?` or `#`, and its last `@` ends the user info.
  const authorityEnd = beforeQuery.search(/[/\\]/);
  const authority = authorityEnd === -1 ? beforeQuery : beforeQuery.slice(0, authorityEnd);
  // A password with a raw `/`, `?` or `#` breaks that rule; such a URL does not parse: mask up to the last `@`.
  const userInfoEnd = URL.canParse(url) ? authority.lastIndexOf('@') : rest.lastIndexOf('@');
  let masked = url;
  if (userInfoEnd !== -1) {
    const userInfo = rest.slice(0, userInfoEnd);
    const colon = userInfo.indexOf(':');
    if (colon !== -1) masked = `${url.slice(0, start + 2)}${userInfo.slice(0, colon)}:***${rest.slice(userInfoEnd)}`;
  }
  return masked.replace(secretParameter, '$1***');
}

/** Free text (an error message from the network) with every URL in it passed through `redactedUrl`. */
export function redactedUrlsIn(text: string): string {
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, (url) => redactedUrl(url));
}
