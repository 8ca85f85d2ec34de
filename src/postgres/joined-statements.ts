import { createHash } from 'node:crypto';
import { PixhookError } from '../shared/pixhook-error.js';
import { sqlState } from './sql-state.js';

// pixhook's own statements sent several at a time, as one simple-protocol query (one round trip), on a `pg`
// connection, their values written in as literals. A transaction's first statement (sent with BEGIN) is prepared on
// its connection the first time it goes (`PREPARE … AS`, in that same query), then sent as `EXECUTE name(literals)`:
// the server plans it once per connection, not on every delivery. A BEGIN that finds it missing, or finds it
// prepared already (a pooler that hands the session's transactions to other server connections, a DEALLOCATE),
// is rolled back and sent again inlined, and that connection stays inlined.
// Statements later in a transaction (those sent with the COMMIT) go prepared only as the first statement's
// companions: prepared in the same query, before it, under names of that group alone, so a first statement found
// prepared on the server session proves its companions are there too (a pooler keeps a transaction on one server
// session). Without that proof (the first statement went inlined) they go inlined: a missing one there would abort
// work that cannot be sent again.
/** A value a statement inlined by pixhook may carry. */
export type InlineValue = string | number | boolean | null;

/** A statement of pixhook's own (a constant text with `$1…$n`) and its values. */
export interface InlineStatement {
  text: string;
  values: readonly InlineValue[];
  /**
   * A transaction's first statement only: the texts of statements sent later in its transaction (with the COMMIT),
   * prepared with it as one group (see above).
   */
  companions?: readonly string[];
}

/** The companions' names (text → name) of a first statement that went prepared: proven on this server session. */
export type ProvenCompanions = ReadonlyMap<string, string>;

const special = /['\\\0]/;

/** A string, number, boolean or null as a SQL literal (pg's `escapeLiteral`: quotes doubled, `E''` when there are backslashes). */
function literal(value: InlineValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new PixhookError('internal_error', 'a SQL number literal must be finite');
    return String(value);
  }
  // Most values (keys, the resource's JSON) hold neither a quote, a backslash nor a NUL: one scan, no copy made for them.
  if (!special.test(value)) return `'${value}'`;
  if (value.includes('\0')) throw new PixhookError('internal_error', 'Postgres text cannot hold a NUL character');
  const quotes = value.includes("'") ? value.replace(/'/g, "''") : value;
  return value.includes('\\') ? ` E'${quotes.replace(/\\/g, '\\\\')}'` : `'${quotes}'`;
}

/** A statement with its parameters written in as literals. */
function inlined(statement: InlineStatement): string {
  return statement.text.replace(/\$(\d+)/g, (_, i: string) => literal(statement.values[Number(i) - 1]!));
}

// The texts are pixhook's own constants (a few per table), so this stays small.
const names = new Map<string, string>();
function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `pixhook_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
    names.set(text, name);
  }
  return name;
}

type Group = { name: string; companions: ProvenCompanions };
const noCompanions: ProvenCompanions = new Map();
// By the companions' list (the book makes one per inbox) and the first statement's text: pixhook's own constants.
const groups = new WeakMap<readonly string[], Map<string, Group>>();

/** A first statement's group: its own name (from every text of the group) and its companions' names (text → name). */
function groupOf(statement: InlineStatement): Group {
  const companions = statement.companions;
  if (companions === undefined || companions.length === 0) return { name: nameOf(statement.text), companions: noCompanions };
  let byText = groups.get(companions);
  if (byText === undefined) groups.set(companions, (byText = new Map()));
  let group = byText.get(statement.text);
  if (group === undefined) {
    const name = nameOf([statement.text, ...companions].join('\0'));
    group = { name, companions: new Map(companions.map((text) => [text, nameOf(`${name}\0${text}`)])) };
    byText.set(statement.text, group);
  }
  return group;
}

const executeOf = (name: string, values: readonly InlineValue[]) =>
  values.length === 0 ? `EXECUTE ${name}` : `EXECUTE ${name}(${values.map(literal).join(', ')})`;

/** The statements prepared on each connection (by its client object). */
const prepared = new WeakMap<object, Set<string>>();
const unprepared = new WeakSet<object>();

interface Queryable {
  query(text: string): Promise<unknown>;
}

/** How `sendJoined` sends: see there. */
interface JoinedOptions {
  head?: string;
  tail?: string;
  prepare?: boolean;
  proven?: ProvenCompanions | undefined;
  /** Given its companions (`proven`) once the query succeeded with the first statement prepared. */
  provenTo?: { proven: ProvenCompanions | undefined };
}
const inlinedOnly: JoinedOptions = {};

/**
 * Sends `head` (plain SQL, e.g. BEGIN), `statements` and `tail` (e.g. COMMIT) as one query on `connection`; resolves
 * with what `pg` answers (one result, or an array of them, the last statement's last). `prepare`: the statements go
 * prepared, with their companions (see above); otherwise inlined, except those `proven` names (the companions of
 * this transaction's first statement, which went prepared). `provenTo`: given the companions of the first statement
 * once the query succeeded with it prepared.
 */
export async function sendJoined(
  connection: Queryable,
  statements: readonly InlineStatement[],
  { head, tail, prepare = false, proven, provenTo }: JoinedOptions = inlinedOnly,
): Promise<unknown> {
  const done = prepared.get(connection);
  let fresh: string[] | undefined;
  const parts = head === undefined ? [] : [head];
  const asPrepared = prepare && !unprepared.has(connection);
  let companions: ProvenCompanions | undefined;
  for (const statement of statements) {
    const provenName = proven?.get(statement.text);
    if (provenName !== undefined) {
      parts.push(executeOf(provenName, statement.values));
      continue;
    }
    if (!asPrepared) {
      parts.push(inlined(statement));
      continue;
    }
    const group = groupOf(statement);
    if (done?.has(group.name) !== true && fresh?.includes(group.name) !== true) {
      // The companions first: the first statement is prepared only once all of them are.
      for (const [text, name] of group.companions) parts.push(`PREPARE ${name} AS ${text}`);
      parts.push(`PREPARE ${group.name} AS ${statement.text}`);
      (fresh ??= []).push(group.name);
    }
    companions ??= group.companions;
    parts.push(executeOf(group.name, statement.values));
  }
  if (tail !== undefined) parts.push(tail);
  try {
    const result = await connection.query(parts.join('; '));
    if (fresh !== undefined) {
      if (done === undefined) prepared.set(connection, new Set(fresh));
      else for (const name of fresh) done.add(name);
    }
    if (companions !== undefined && provenTo !== undefined) provenTo.proven = companions;
    return result;
  } catch (error) {
    // Which of the PREPAREs ran is not known; or the server session is not the one they ran on.
    if (fresh !== undefined || isPreparedMismatch(error)) unprepared.add(connection);
    throw error;
  }
}

/**
 * True when `error` says the server session's prepared statements are not the ones recorded here: one missing
 * (26000) or one already there (42P05). `sendJoined` inlines on that connection from then on.
 */
export const isPreparedMismatch = (error: unknown): boolean => sqlState(error) === '26000' || sqlState(error) === '42P05';
