import { describe, expect, it } from 'vitest';
import { escapeHtml, safeJson } from '../../src/console/escape-html.js';
import { html } from '../../src/console/html.js';
import { isLoopback, sameSecret } from '../../src/console/console-security.js';

describe('console escaping and access checks', () => {
  it('escapes every markup character and U+2028/U+2029', () => {
    expect(escapeHtml(`"><img src=x onerror=alert(1)>\u2028'\``)).toBe(
      '&quot;&gt;&lt;img src&#61;x onerror&#61;alert(1)&gt;&#x2028;&#39;&#96;',
    );
    expect(html`<td title="${'"x"'}">${'<script>'}</td>`.text).toBe('<td title="&quot;x&quot;">&lt;script&gt;</td>');
    expect(html`<p>${html`<b>kept</b>`}${['<i>', 1]}</p>`.text).toBe('<p><b>kept</b>&lt;i&gt;1</p>');
    expect(safeJson({ a: '\u2028</script>' })).toBe('{"a":"\\u2028\\u003c/script>"}');
  });

  it('tells loopback addresses and hosts from others', () => {
    for (const yes of ['127.0.0.1', '127.0.0.1:4000', 'localhost:3000', '[::1]:80', '::1', '::ffff:127.0.0.1'])
      expect(isLoopback(yes)).toBe(true);
    for (const no of ['0.0.0.0', '10.0.0.2', 'evil.example', 'localhost.evil.example', '[::]:80']) expect(isLoopback(no)).toBe(false);
  });

  it('compares tokens in constant time whatever their lengths', () => {
    expect(sameSecret('a'.repeat(32), 'a'.repeat(32))).toBe(true);
    expect(sameSecret('a', 'a'.repeat(32))).toBe(false);
  });
});
