/**
 * Levenshtein distance between two strings, for "did you mean" lists. With a `limit`,
 * it stops as soon as the distance must exceed it and returns `limit + 1`, so ranking a
 * long list of names against a typo stays cheap.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      current.push(value);
      if (value < best) best = value;
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Names within a third of `given`'s length in edits (at least 2), or starting with it,
 * nearest first, at most `max`: the command line's and the config's did-you-mean.
 */
export function closest(given: string, names: readonly string[], max = 3): string[] {
  const limit = Math.max(2, Math.floor(given.length / 3));
  return names
    .map((name) => ({ name, distance: editDistance(given, name, limit) }))
    .filter((entry) => entry.distance <= limit || (given.length >= 3 && entry.name.startsWith(given)))
    .sort((a, b) => a.distance - b.distance || (a.name < b.name ? -1 : 1))
    .slice(0, max)
    .map((entry) => entry.name);
}

/** Edits between two short strings, an adjacent swap counting as one (`nmae` is one from `name`). */
function typoDistance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      let value = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1);
      row.push(value);
    }
    rows.push(row);
  }
  return rows[a.length]![b.length]!;
}

/**
 * The names a typo most likely meant, nearest first, at most `max`: within a third of its
 * length in edits (at least one; a swap of neighbours is one edit), or starting with it.
 * Empty when nothing is close, so a message never suggests a name that merely sorts first.
 */
export function nearestNames(given: string, names: readonly string[], max = 3): string[] {
  return nearestBy(given, names, (name) => name, max);
}

/** nearestNames over any items, compared by `key`; ties keep the items' order. */
export function nearestBy<T>(given: string, items: readonly T[], key: (item: T) => string, max = 3): T[] {
  const limit = Math.max(1, Math.floor(given.length / 3));
  const wanted = given.toLowerCase();
  return items
    .map((item, index) => {
      const name = key(item).toLowerCase();
      // Long names cannot be near: skip the table for them.
      const distance = Math.abs(name.length - wanted.length) > limit ? limit + 1 : typoDistance(wanted, name);
      return { item, index, distance: distance <= limit ? distance : wanted.length >= 3 && name.startsWith(wanted) ? limit : Number.POSITIVE_INFINITY };
    })
    .filter((entry) => entry.distance !== Number.POSITIVE_INFINITY)
    .sort((a, b) => a.distance - b.distance || a.index - b.index)
    .slice(0, max)
    .map((entry) => entry.item);
}

/** `message` ending in "; did you mean "a" or "b"?" when there is anything near, else unchanged. */
export function withSuggestion(message: string, near: readonly string[]): string {
  if (near.length === 0) return message;
  return `${message.replace(/\.$/, "")}; did you mean ${near.map((name) => JSON.stringify(name)).join(" or ")}?`;
}
