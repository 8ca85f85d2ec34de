// A CPF or CNPJ is one number however it is written: `123.456.789-09`, `12345678909`, ` 123 456 789 09 `.
// Gateways sometimes mask the payer's document (`***.456.789-**`); a masked position proves nothing either way.

const separators = /[\s.\-/]/g;
const maskCharacters = /^[*xX•#]$/;

/** The digits of a CPF (11) or CNPJ (14) written with any separators, or undefined when it is neither. */
export function documentDigits(value: string): string | undefined {
  const digits = value.replace(separators, '');
  return /^(\d{11}|\d{14})$/.test(digits) ? digits : undefined;
}

/**
 * Whether `actual` (as an event reports it) names the document `expectedDigits`: true or false when it can
 * be told, undefined when it cannot (absent, or every position masked). Visible digits must all match and
 * the lengths must agree; a CPF is never the same document as a CNPJ. A document present but empty, or
 * not 11/14 characters, is not the expected one (false): a present document is never skipped.
 */
export function sameDocument(expectedDigits: string, actual: string | undefined): boolean | undefined {
  if (actual === undefined) return undefined;
  const written = actual.replace(separators, '');
  if (written === '') return false;
  if (written.length !== expectedDigits.length) return false;
  let visible = 0;
  for (let i = 0; i < written.length; i++) {
    const char = written[i] as string;
    if (maskCharacters.test(char)) continue;
    if (char !== expectedDigits[i]) return false;
    visible++;
  }
  return visible === 0 ? undefined : true;
}
