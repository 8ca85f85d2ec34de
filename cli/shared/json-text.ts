import { escapeControls } from '../../src/shared/escape-controls.js';

/**
 * JSON for a terminal: `JSON.stringify` escapes only the C0 controls, so the C1 controls (U+0080–U+009F;
 * U+009B is a one-character `ESC [`), DEL, the line separators U+2028/U+2029 and the bidi overrides are
 * escaped too. Still valid JSON: every untrusted string the CLI prints goes through here.
 */
export function jsonText(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return '"(unprintable)"';
  }
  return escapeControls(text ?? 'undefined');
}
