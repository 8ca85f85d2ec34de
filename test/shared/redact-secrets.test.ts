import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/shared/redact-secrets.js';

// Issue 31: handler and import errors reached the CLI and the console with URL passwords and
// `api_key=` values. One redaction for logs, journal, console and CLI.
describe('redactSecrets', () => {
  it.each([
    ['connect to postgres://app:hunter2@db:5432/shop failed', 'connect to postgres://app:***@db:5432/shop failed'],
    ['GET https://api.example/x?api_key=hunter2&page=2 → 500', 'GET https://api.example/x?api_key=***&page=2 → 500'],
    ['bad config api_key=hunter2 for merchant 7', 'bad config api_key=*** for merchant 7'],
    ['apiKey: hunter2', 'apiKey: ***'],
    ['{"token":"hunter2","n":1}', '{"token":"***","n":1}'],
    ['secret=hunter2; password=hunter2', 'secret=***; password=***'],
    ['Authorization: Bearer hunter2.abc-def', 'Authorization: Bearer ***'],
    ['basic auth Basic aHVudGVyMg== refused', 'basic auth Basic *** refused'],
    ['signed with whsec_hunter2abc', 'signed with whsec_***'],
    ['client_secret=hunter2', 'client_secret=***'],
  ])('%s → %s', (text, shown) => {
    expect(redactSecrets(text)).toBe(shown);
    expect(redactSecrets(text)).not.toContain('hunter2');
  });

  it('keeps text without secrets as it is', () => {
    const text = 'TypeError: Cannot read properties of undefined (reading "amount") at charge 123, status 500';
    expect(redactSecrets(text)).toBe(text);
  });

  it('is idempotent', () => {
    const once = redactSecrets('redis://:hunter2@h:6379 token=hunter2 Bearer hunter2 whsec_hunter2');
    expect(redactSecrets(once)).toBe(once);
  });
});

// Issue 31: one redaction for logs, the journal and the console.
describe("redactSecrets (the console's cases)", () => {
  it.each([
    ['connect failed postgres://app:hunter2@db:5432/x', 'connect failed postgres://app:***@db:5432/x'],
    ['GET https://api.example/v1?api_key=abc123&x=1 failed', 'GET https://api.example/v1?api_key=***&x=1 failed'],
    ['bad api_key=abc123 here', 'bad api_key=*** here'],
    ['token: "tok_999"', 'token: "***"'],
    ['{"secret":"s3cr3t","a":1}', '{"secret":"***","a":1}'],
    ['password=p@ss; next', 'password=***; next'],
    ['Authorization: Bearer eyJhbGciOi.abc.def', 'Authorization: Bearer ***'],
    ['signed with whsec_abcDEF123', 'signed with whsec_***'],
    ['client_secret=foo x-api-key: zzz', 'client_secret=*** x-api-key: ***'],
  ])('masks %s', (text, expected) => {
    expect(redactSecrets(text)).toBe(expected);
  });

  it('keeps text without credentials as it is', () => {
    for (const text of ['no secrets at the amount 12', 'tokenizer failed at 3 tokens', 'TypeError: x is not a function'])
      expect(redactSecrets(text)).toBe(text);
  });
});
