/**
 * JSON for a terminal: `JSON.stringify` escapes only the C0 controls, so the C1 controls (U+0080–U+009F;
 * U+009B is a one-character `ESC [`), DEL and the line separators U+2028/U+2029 are escaped too. Still
 * valid JSON: every untrusted string the CLI prints goes through here.
 */
export function jsonText(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return '"(unprintable)"';
  }
  return (text ?? 'undefined').replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
