interface AccessToken {
  token: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

interface TokenCacheOptions {
  fetchToken: () => Promise<{ token: string; expiresInMs: number }>;
  now: () => number;
  /** Renew this long before expiry. */
  renewBeforeMs: number;
}

interface TokenCache {
  /** A token valid for at least `renewBeforeMs`, fetched at most once however many callers wait. */
  get(): Promise<string>;
  /** Drops `token` if it is still the cached one (a 401 said it is dead); a newer token is kept. */
  invalidate(token: string): void;
}

export function createTokenCache(options: TokenCacheOptions): TokenCache {
  let current: AccessToken | undefined;
  let inflight: Promise<string> | undefined;

  function refresh(): Promise<string> {
    inflight ??= (async () => {
      try {
        const startedAt = options.now();
        const fresh = await options.fetchToken();
        // Counted from before the request, so the cached expiry is never later than the server's.
        current = { token: fresh.token, expiresAt: startedAt + fresh.expiresInMs };
        return fresh.token;
      } finally {
        inflight = undefined;
      }
    })();
    return inflight;
  }

  return {
    get() {
      if (current && options.now() < current.expiresAt - options.renewBeforeMs) return Promise.resolve(current.token);
      return refresh();
    },
    invalidate(token) {
      if (current?.token === token) current = undefined;
    },
  };
}
