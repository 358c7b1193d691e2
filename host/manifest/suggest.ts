// "Did you mean" for a misspelt manifest key: the known key closest to what was written, when it
// is close enough to be a typo (a missing plural s, a swapped or wrong letter). Pure.

/** Edits (insert, delete, substitute, swap neighbours) between two words, case-insensitively. */
export function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const rows = Array.from({ length: x.length + 1 }, (_, i) =>
    Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1])
        rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[x.length][y.length];
}

/** The candidate `word` is most likely a typo of (at most 2 edits, fewer for short words), if any. */
export function closestKey(word: string, candidates: Iterable<string>): string | undefined {
  const allowed = word.length <= 3 ? 1 : 2;
  let best: { key: string; distance: number } | undefined;
  for (const key of candidates) {
    if (key === word) continue;
    const distance = editDistance(word, key);
    if (distance <= allowed && (best === undefined || distance < best.distance)) best = { key, distance };
  }
  return best?.key;
}

/** `; did you mean "scopes"?` for a key that looks like a typo of a known one, else ''. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const key = closestKey(word, candidates);
  return key === undefined ? '' : `; did you mean "${key}"?`;
}
