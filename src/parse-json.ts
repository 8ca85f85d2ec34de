const decoder = new TextDecoder('utf-8', { fatal: true });

/** Decodes UTF-8 strictly and parses JSON; the signature was checked over these same bytes. */
export function parseJson(bytes: Uint8Array): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(decoder.decode(bytes)) };
  } catch {
    return { ok: false };
  }
}
