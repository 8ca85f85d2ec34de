// C0 controls, DEL, C1 controls (U+009B is a one-character `ESC [`), the line separators U+2028/U+2029
// and the bidi overrides and isolates, which reorder what a terminal or a log viewer shows.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const controls = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const allControls = new RegExp(controls.source, 'g');

/**
 * `text` with every control character written as `\uXXXX`, so an untrusted string can never forge a
 * line, colour a terminal or reorder what is shown. A string with none (the usual case) is returned
 * as it is after one regex test.
 */
export function escapeControls(text: string): string {
  if (!controls.test(text)) return text;
  return text.replace(allControls, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Whether `text` holds a character `escapeControls` would rewrite. */
export function hasControls(text: string): boolean {
  return controls.test(text);
}
