import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../src/book/payment-policy.js';
import { policyReasons } from '../../src/events/violation.js';
import { repoRoot } from './doc-files.js';

// The payment book's reasons are not answers (reasons.ts), so the generated facts do not cover them: the two tables
// that list them are checked here against the policy itself, each reason once, with its default.
describe.each(['README.md', 'docs/payment-safety.md'])('the policy table in %s', (file) => {
  it('lists every policy reason once, with its default action', () => {
    const rows = readFileSync(`${repoRoot}${file}`, 'utf8')
      .split('\n')
      .filter((line) => /^\| `[a-z_]+` \|/.test(line));
    for (const reason of policyReasons) {
      const row = rows.filter((line) => line.startsWith(`| \`${reason}\` |`));
      expect(row, reason).toHaveLength(1);
      expect(row[0]!.split('|').at(-2)!.trim().replaceAll('`', ''), reason).toMatch(new RegExp(`^${defaultPolicy[reason]}\\b`));
    }
  });
});
