const special = /[&<>"'`=\u2028\u2029]/;
const allSpecial = /[&<>"'`=\u2028\u2029]/g;
const entities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
  '=': '&#61;',
  '\u2028': '&#x2028;',
  '\u2029': '&#x2029;',
};

/**
 * Text made safe for HTML content and quoted attribute values. U+2028/U+2029 become references too:
 * they end a line in JavaScript, so no page text can ever break a script that copies it.
 */
export function escapeHtml(text: string): string {
  if (!special.test(text)) return text;
  return text.replace(allSpecial, (c) => entities[c]!);
}

/** JSON for a `text/event-stream` or an API body: U+2028/U+2029 (and `<`) as `\u` escapes, so the text is inert wherever it lands. */
export function safeJson(value: unknown, space?: number): string {
  return JSON.stringify(value, undefined, space)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
    .replace(/</g, '\\u003c');
}
