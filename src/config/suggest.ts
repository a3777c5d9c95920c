// "Did you mean …?" for keys and enum values.

function normalize(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Levenshtein distance, giving up (returning limit + 1) once it must exceed `limit`. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
      rowMin = Math.min(rowMin, previous[j]!);
    }
    if (rowMin > limit) return limit + 1;
  }
  return previous[b.length]!;
}

const normalizedLists = new WeakMap<readonly string[], string[]>();

/** The closest candidate, when it is close enough to be a plausible typo; otherwise undefined. */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  if (input.length > 64) return undefined;
  const wanted = normalize(input);
  let normalized = normalizedLists.get(candidates);
  if (normalized === undefined) {
    normalized = candidates.map(normalize);
    normalizedLists.set(candidates, normalized);
  }
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  candidates.forEach((candidate, index) => {
    const other = normalized[index]!;
    // A typo is at most a third of the shorter word.
    const limit = Math.max(1, Math.floor(Math.min(wanted.length, other.length) / 3));
    const score = editDistance(wanted, other, limit);
    if (score <= limit && score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  });
  return best;
}

export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  const match = closest(input, candidates);
  return match === undefined ? undefined : `Did you mean "${match}"?`;
}
