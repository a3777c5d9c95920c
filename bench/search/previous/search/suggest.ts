import { boundedEditDistance } from './edit-distance.ts';
import { splitWords, stem } from './tokenize.ts';

const MAX_QUERY_CHARS = 200;
const MIN_SIMILARITY = 0.4;

/** How alike two strings are, 0..1, by edit distance (0 when further apart than 40% of the longer). */
function editSimilarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  if (longest === 0) return 0;
  const limit = Math.max(1, Math.floor(longest * 0.4));
  const distance = boundedEditDistance(a, b, limit);
  return distance > limit ? 0 : 1 - distance / longest;
}

function wordMatches(queryWord: string, nameWord: string): boolean {
  if (nameWord === queryWord) return true;
  if (queryWord.length >= 3 && (nameWord.startsWith(queryWord) || queryWord.startsWith(nameWord)))
    return true;
  return queryWord.length >= 4 && boundedEditDistance(queryWord, nameWord, 1) <= 1;
}

/**
 * Names close to what the user typed, for when a search found nothing: by edit distance to the whole
 * name or its tool part ("githb__get_isue"), and by shared words allowing prefixes and one typo.
 */
export function suggestNames(names: readonly string[], query: string, limit: number): string[] {
  if (typeof query !== 'string' || limit <= 0) return [];
  const text = query.slice(0, MAX_QUERY_CHARS);
  const compact = text.trim().toLowerCase().replace(/\s+/g, '_');
  if (!compact) return [];
  const queryWords = [...new Set(splitWords(text).map(stem))];
  const scored: Array<{ name: string; score: number }> = [];
  for (const name of names) {
    const lower = name.toLowerCase();
    const separator = lower.indexOf('__');
    const toolPart = separator >= 0 ? lower.slice(separator + 2) : lower;
    let score = Math.max(editSimilarity(compact, lower), editSimilarity(compact, toolPart));
    if (queryWords.length > 0) {
      const nameWords = splitWords(name).map(stem);
      let shared = 0;
      for (const q of queryWords) if (nameWords.some((w) => wordMatches(q, w))) shared++;
      // A shared word is weaker evidence than a near-identical name.
      score = Math.max(score, (0.9 * shared) / Math.max(queryWords.length, 1));
    }
    if (score >= MIN_SIMILARITY) scored.push({ name, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return scored.slice(0, limit).map((s) => s.name);
}
