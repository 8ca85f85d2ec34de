import { describe, expect, it } from 'vitest';
import { redactedUrl, redactedUrlsIn } from '../../src/shared/redacted-url.js';
import { jsonText } from '../../cli/shared/json-text.js';

// Issue 20: "`send` prints the target URL's password, while Redis URLs are masked." One redactedUrl
// for any URL a command prints.
describe('redactedUrl', () => {
  it.each([
    ['https://user:hunter2@example.com:8443/hook?x=1', 'https://user:***@example.com:8443/hook?x=1'],
    ['redis://:hunter2@127.0.0.1:6379/0', 'redis://:***@127.0.0.1:6379/0'],
    ['redis://:pa@hunter2@127.0.0.1:6379', 'redis://:***@127.0.0.1:6379'],
    ['redis+cluster://u:pa/hunter2@h1:7000,h2:7001', 'redis+cluster://u:***@h1:7000,h2:7001'],
    ['redis://u:p?hunter2@host', 'redis://u:***@host'],
    ['https://h/hook?token=hunter2&a=b&api_key=hunter2#f', 'https://h/hook?token=***&a=b&api_key=***#f'],
    ['https://h:8080/users/@me', 'https://h:8080/users/@me'],
    ['http://user@h/', 'http://user@h/'],
    ['not a url', 'not a url'],
  ])('%s → %s', (url, shown) => {
    expect(redactedUrl(url)).toBe(shown);
    expect(redactedUrl(url)).not.toContain('hunter2');
  });

  it('masks every URL inside free text, such as a network error', () => {
    expect(redactedUrlsIn('Request cannot be constructed from a URL that includes credentials: http://u:hunter2@127.0.0.1:9/x')).toBe(
      'Request cannot be constructed from a URL that includes credentials: http://u:***@127.0.0.1:9/x',
    );
  });

  it('jsonText escapes the bidi overrides as well as C1, DEL and U+2028', () => {
    expect(jsonText('a\u202eb\u2066c\u009bd\u007fe\u2028')).toBe('"a\\u202eb\\u2066c\\u009bd\\u007fe\\u2028"');
  });
});
