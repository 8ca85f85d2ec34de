const decoder = new TextDecoder('utf-8', { fatal: true });

export type ParsedJson = { ok: true; value: unknown; text: string } | { ok: false; message: string };

/** Decodes UTF-8 strictly and parses JSON; the signature was checked over these same bytes. */
export function parseJson(bytes: Uint8Array): ParsedJson {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { ok: false, message: 'the body is not valid UTF-8' };
  }
  try {
    return { ok: true, value: JSON.parse(text), text };
  } catch (error) {
    return { ok: false, message: error instanceof SyntaxError ? error.message : 'the body is not JSON' };
  }
}
