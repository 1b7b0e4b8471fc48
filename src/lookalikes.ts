/**
 * Variables that look like Ringmaster's but are not (DESIGN.md §6, "Look-alike variables"): a
 * mistyped name is otherwise ignored in silence (`REDIS_ULR` started an embedded Redis the
 * workers never saw, `AUTH_TOKEN` left auth off). Pure, a leaf both the server (`config.ts`)
 * and the CLI (`src/cli/main.ts`) import: each gives it the names it reads.
 */

/** A variable set that is not one Ringmaster reads, and the one it most likely meant. */
export interface Lookalike {
  readonly variable: string;
  readonly meant: string;
}

/** The prefix of the CLI's variables: any other name under it is a mistake. */
const OURS = 'RINGMASTER_';

/**
 * Edits from `a` to `b`: insertions, deletions, substitutions and swaps of two neighbours (a
 * swap is one slip of the fingers, `ULR` for `URL`).
 * Written here, not taken from npm: fastest-levenshtein and leven count a swap as two edits
 * (`PROT` would not be taken for `PORT`), and damerau-levenshtein, which counts it as one, has
 * had no release since 2021 and ships no types.
 */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(at(i, j), at(i - 2, j - 2) + 1);
      }
    }
  }
  return at(a.length, b.length);
}

/**
 * The most edits a name may be from a known one to be taken for it: one for a short name
 * (`PORT`, `HOST`: `HOME` is two from `HOST` and must not be), two for a longer one.
 */
const reach = (known: string): number => (known.length <= 6 ? 1 : 2);

/** The known name nearest `name` (upper-cased), with its distance. */
function nearest(name: string, known: readonly string[]): { meant: string; distance: number } {
  let best = { meant: known[0] ?? '', distance: Number.POSITIVE_INFINITY };
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance < best.distance) best = { meant: candidate, distance };
  }
  return best;
}

/**
 * The names among `names` that look like one of `known` but are none: the same letters in
 * another case (`redis_url`), a near miss ({@link reach} edits), or any other `RINGMASTER_*`
 * (named with the known name nearest it, or nearest what follows the prefix:
 * `RINGMASTER_PORT` → `PORT`). In the order of `names`.
 */
export function lookalikes(names: readonly string[], known: readonly string[]): Lookalike[] {
  const found: Lookalike[] = [];
  for (const variable of names) {
    if (known.includes(variable)) continue;
    const upper = variable.toUpperCase();
    const near = nearest(upper, known);
    if (upper.startsWith(OURS)) {
      const rest = nearest(upper.slice(OURS.length), known);
      found.push({ variable, meant: rest.distance < near.distance ? rest.meant : near.meant });
    } else if (near.distance <= reach(near.meant)) {
      found.push({ variable, meant: near.meant });
    }
  }
  return found;
}
