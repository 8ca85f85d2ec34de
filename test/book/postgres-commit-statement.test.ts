// What a kept Postgres book transaction sends before its COMMIT (src/postgres/commit-statement.ts): the book's write,
// the presumed claim and the done mark folded into one statement when the write is a plain UPDATE; otherwise each on
// its own, the claim asserted. Their behaviour on a server (a claim that claims nothing undoes everything) is tested in
// test/postgres/book-round-trips.test.ts and test/postgres/commit-fails-after-handler.test.ts.
import { describe, expect, it } from 'vitest';
import { assertedClaim, commitStatements, commitTexts } from '../../src/postgres/commit-statement.js';

const write = { text: 'UPDATE "r" SET state = $2, has_disputes = $3 WHERE key = $1', values: ['t:1', '{}', false] };
const claim = {
  text: 'INSERT INTO "i" AS inbox (scope, key, expires_at) VALUES ($1, $2, $3) RETURNING 1 AS claimed',
  values: ['effects', 'k', 60],
};
const mark = { text: 'INSERT INTO "i" (scope, key, expires_at) VALUES ($1, $2, $3)', values: ['delivery', 'k', 90] };

describe('the statements sent before a kept book transaction’s COMMIT', () => {
  it('the write, the claim and the mark: one UPDATE carrying the other two as CTEs, their parameters after its own', () => {
    const [folded, ...rest] = commitStatements(write, claim, mark);
    expect(rest).toEqual([]);
    expect(folded!.text).toBe(
      'WITH claimed AS (INSERT INTO "i" AS inbox (scope, key, expires_at) VALUES ($4, $5, $6) RETURNING 1 AS claimed), ' +
        'marked AS (INSERT INTO "i" (scope, key, expires_at) VALUES ($7, $8, $9)) ' +
        'UPDATE "r" SET state = $2, has_disputes = $3 WHERE key = $1 AND 1 / (SELECT count(*)::int FROM claimed) = 1',
    );
    expect(folded!.values).toEqual(['t:1', '{}', false, 'effects', 'k', 60, 'delivery', 'k', 90]);
    // The same text each time (it is prepared once per connection under a name made from it).
    expect(commitStatements(write, claim, mark)[0]!.text).toBe(folded!.text);
  });

  it('without a claim the write carries the mark alone, with no assertion; without a mark, the claim alone', () => {
    const [withMark] = commitStatements(write, undefined, mark);
    expect(withMark!.text).toBe(
      'WITH marked AS (INSERT INTO "i" (scope, key, expires_at) VALUES ($4, $5, $6)) UPDATE "r" SET state = $2, has_disputes = $3 WHERE key = $1',
    );
    expect(withMark!.values).toEqual(['t:1', '{}', false, 'delivery', 'k', 90]);
    const [withClaim] = commitStatements(write, claim, undefined);
    expect(withClaim!.text).toMatch(/^WITH claimed AS \(.*\$6\) RETURNING 1 AS claimed\) UPDATE .* = 1$/);
    expect(withClaim!.values).toEqual(['t:1', '{}', false, 'effects', 'k', 60]);
    expect(commitStatements(write, undefined, undefined)).toEqual([write]);
  });

  it('no write left (it went with an earlier statement), or a write that cannot carry them: each on its own, the claim asserted', () => {
    expect(commitStatements(undefined, claim, mark)).toEqual([assertedClaim(claim), mark]);
    expect(assertedClaim(claim).text).toBe(`WITH claimed AS (${claim.text}) SELECT 1 / (SELECT count(*)::int FROM claimed) AS claimed`);
    const hold = {
      text: 'WITH w AS (UPDATE "r" SET state = $2 WHERE key = $1) INSERT INTO "h" (id) SELECT $3',
      values: ['t:1', '{}', 'h'],
    };
    expect(commitStatements(hold, claim, mark)).toEqual([hold, assertedClaim(claim), mark]);
    const returning = { text: 'UPDATE "r" SET state = $2 WHERE key = $1 RETURNING 1', values: ['t:1', '{}'] };
    expect(commitStatements(returning, undefined, mark)).toEqual([returning, mark]);
    expect(commitStatements(undefined, undefined, undefined)).toEqual([]);
  });

  it('the texts to prepare with the first statement: every one the COMMIT can send', () => {
    const other = {
      text: 'INSERT INTO "i" (scope, key, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1',
      values: claim.values,
    };
    const texts = commitTexts(write.text, [claim.text, other.text], mark.text);
    const sent = [
      commitStatements(write, claim, mark),
      commitStatements(write, claim, undefined),
      commitStatements(write, undefined, mark),
      commitStatements(write, undefined, undefined),
      commitStatements(undefined, claim, mark),
      commitStatements(write, other, mark),
      commitStatements(write, other, undefined),
      commitStatements(undefined, other, mark),
    ].flat();
    for (const statement of sent) expect(texts).toContain(statement.text);
    expect(new Set(texts).size).toBe(texts.length);
    expect(texts).toHaveLength(9);
    expect(commitTexts('SELECT 1', [], undefined)).toEqual(['SELECT 1']);
  });
});
