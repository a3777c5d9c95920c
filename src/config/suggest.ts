// "Did you mean …?" for keys and enum values.

function normalize(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, '');
}

function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

/** The closest candidate, when it is close enough to be a plausible typo; otherwise undefined. */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  if (input.length > 64) return undefined;
  const wanted = normalize(input);
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const normalized = normalize(candidate);
    const score = normalized === wanted ? 0 : editDistance(wanted, normalized);
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.max(1, Math.floor(Math.min(wanted.length, normalize(best).length) / 3));
  return bestScore <= limit ? best : undefined;
}

export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  const match = closest(input, candidates);
  return match === undefined ? undefined : `Did you mean "${match}"?`;
}
