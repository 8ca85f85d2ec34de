import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../../src/shared/redact-secrets.js';

// Issue 31: one redaction for logs, the journal and the console.
describe('redactSecrets', () => {
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
