import type { InlineValue } from './joined-statements.js';

// What a kept book transaction sends before its COMMIT (shared-transactions.ts): the book's write, the transactional
// handler's presumed claim (asserted: it must claim its key) and the store's done mark. Folded into ONE statement when
// the write is a plain `UPDATE … WHERE …`: the claim and the mark become data-modifying CTEs of the write (each runs
// once, to completion, whether read or not), and the claim's assertion goes into the write's WHERE, where the planner
// makes it a one-time filter evaluated before the row is read: `1 / count` divides by zero (SQLSTATE 22012) when the
// claim claimed nothing, as the asserted claim on its own does, and the statement, the COMMIT after it and everything
// the transaction wrote are undone. One statement instead of three: one portal and one snapshot on the server, and no
// row answered (an UPDATE without RETURNING), so the client parses no RowDescription or DataRow. The rows touched are
// distinct (the resource; the inbox's `effects` row and its `delivery` row), so running them in one statement changes
// nothing of what each writes.

/** A statement of pixhook's own (a constant text with `$1…$n`) and its values. */
interface CommitStatement {
  text: string;
  values: readonly InlineValue[];
}

/** The claim, on its own: it fails (division by zero, SQLSTATE 22012) when it claims nothing. */
export function assertedClaim(claim: CommitStatement): CommitStatement {
  return { text: assertedText(claim.text), values: claim.values };
}

const asserted = new Map<string, string>();
function assertedText(claim: string): string {
  let text = asserted.get(claim);
  if (text === undefined) {
    text = `WITH claimed AS (${claim}) SELECT 1 / (SELECT count(*)::int FROM claimed) AS claimed`;
    asserted.set(claim, text);
  }
  return text;
}

/** A write that can carry the others: an UPDATE whose WHERE ends it (no RETURNING, no WITH of its own). */
const foldable = (text: string) => /^UPDATE\s[^;]*\sWHERE\s[^;]*$/.test(text) && !/\bRETURNING\b/i.test(text);

/** `text` with each `$n` moved up by `by`. */
const shifted = (text: string, by: number) => text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + by}`);

/** The highest `$n` of `text`. */
const parameters = (text: string) => Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map(([, n]) => Number(n)));

// By the write's text, then the claim's ('' for none), then the mark's: pixhook's own constants, so this stays small.
const folds = new Map<string, Map<string, Map<string, string | null>>>();

/** The folded text of `write` (an UPDATE), `claim` and `mark`; `null` when the write cannot carry them. */
function foldedText(write: string, claim: string | undefined, mark: string | undefined): string | null {
  let byClaim = folds.get(write);
  if (byClaim === undefined) folds.set(write, (byClaim = new Map()));
  let byMark = byClaim.get(claim ?? '');
  if (byMark === undefined) byClaim.set(claim ?? '', (byMark = new Map()));
  let text = byMark.get(mark ?? '');
  if (text === undefined) {
    text = fold(write, claim, mark);
    byMark.set(mark ?? '', text);
  }
  return text;
}

function fold(write: string, claim: string | undefined, mark: string | undefined): string | null {
  if (!foldable(write) || (claim === undefined && mark === undefined)) return null;
  let next = parameters(write);
  const ctes: string[] = [];
  if (claim !== undefined) {
    ctes.push(`claimed AS (${shifted(claim, next)})`);
    next += parameters(claim);
  }
  if (mark !== undefined) ctes.push(`marked AS (${shifted(mark, next)})`);
  const assertion = claim === undefined ? '' : ' AND 1 / (SELECT count(*)::int FROM claimed) = 1';
  return `WITH ${ctes.join(', ')} ${write}${assertion}`;
}

/**
 * The statements to send before the COMMIT, in order: the book's `write` (when not sent yet), the presumed `claim`
 * (when the handler was answered from it: asserted) and the store's `mark`; as one statement when they fold.
 */
export function commitStatements(
  write: CommitStatement | undefined,
  claim: CommitStatement | undefined,
  mark: CommitStatement | undefined,
): CommitStatement[] {
  const text = write === undefined ? null : foldedText(write.text, claim?.text, mark?.text);
  if (write !== undefined && text !== null) {
    const values = [...write.values, ...(claim?.values ?? []), ...(mark?.values ?? [])];
    return [{ text, values }];
  }
  const statements: CommitStatement[] = [];
  if (write !== undefined) statements.push(write);
  if (claim !== undefined) statements.push(assertedClaim(claim));
  if (mark !== undefined) statements.push(mark);
  return statements;
}

/**
 * Every text `commitStatements` can send for this `write`, the `claims` texts (each claim the COMMIT may write) and
 * the `mark` text: the book prepares them with its first statement, as its companions (joined-statements.ts).
 */
export function commitTexts(write: string, claims: readonly string[], mark: string | undefined): string[] {
  const texts = new Set<string>();
  for (const c of [...claims, undefined]) {
    for (const m of mark === undefined ? [undefined] : [mark, undefined]) {
      const text = foldedText(write, c, m);
      if (text !== null) texts.add(text);
    }
  }
  texts.add(write);
  for (const claim of claims) texts.add(assertedText(claim));
  if (mark !== undefined) texts.add(mark);
  return [...texts];
}
