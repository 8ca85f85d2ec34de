import { PixhookConfigError } from './pixhook-error.js';

// The one check that an options object holds only the keys its factory reads: a typo (`tolerance` for
// `toleranceSeconds`) would otherwise be ignored in silence and the default would run instead.

/** Every string key of `T`, across all members of a union. */
type OptionKey<T> = T extends unknown ? Extract<keyof T, string> : never;

type Missing<T, K extends readonly string[]> = Exclude<OptionKey<T>, K[number]>;

/**
 * The list of `T`'s option names, checked by the compiler both ways: a name `T` does not have, or a key of
 * `T` left out of the list, does not compile. `optionNames<FooOptions>()(['a', 'b'])`.
 */
export function optionNames<T>() {
  return <const K extends readonly OptionKey<T>[]>(
    names: K & ([Missing<T, K>] extends [never] ? unknown : { missingOptionNames: Missing<T, K> }),
  ): readonly string[] => names;
}

/**
 * Refuses every key of `options` that `known` does not list, with a `PixhookConfigError` naming it (and
 * the known key it is closest to, when one is close). A key whose value is `undefined` is not given, as
 * everywhere else in pixhook, so `...(x && { a })` and `{ a: env.A }` pass. `within` prefixes nested
 * names (`'signature.'`). Only pixhook's own level is checked: an object handed on to another library
 * (ioredis, pg, BullMQ options) is that library's to read.
 */
export function refuseUnknownOptions(options: unknown, known: readonly string[], factory: string, within = ''): void {
  if (typeof options !== 'object' || options === null) return;
  for (const key of Object.keys(options)) {
    if (known.includes(key) || (options as Record<string, unknown>)[key] === undefined) continue;
    const near = closestName(key, known);
    throw new PixhookConfigError(
      `pixhook: \`${within}${key}\` is not an option of ${factory}${near === undefined ? '' : `; did you mean \`${within}${near}\`?`}`,
    );
  }
}

/** The known name `given` most likely meant: same letters in another case, the start or end of one another, or at most 2 edits away. */
function closestName(given: string, known: readonly string[]): string | undefined {
  const lower = given.toLowerCase();
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const name of known) {
    const other = name.toLowerCase();
    let score = editDistance(lower, other);
    const within = (a: string, b: string): boolean => a.startsWith(b) || a.endsWith(b);
    const prefix = Math.min(lower.length, other.length) >= 4 && (within(other, lower) || within(lower, other));
    if (prefix) score = Math.min(score, 1);
    const limit = Math.min(2, Math.floor(Math.max(lower.length, other.length) / 3));
    if (score <= limit && score < bestScore) {
      best = name;
      bestScore = score;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
