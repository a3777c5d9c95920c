import type { SearchDoc } from '../../src/catalog/search.ts';

type SearchHit = { name: string; score: number };

/**
 * The seed's ranking (seed 000 §7 "Search Algorithm"), written from its description. For each
 * whitespace-separated, lowercased query term:
 *   10  the term equals a part of the registered tool name (parts split at `_` and `-`)
 *    5  otherwise, the term is a substring of a name part
 * plus
 *    4  the term matches at a word boundary in the description
 * and, only when none of the above matched,
 *    3  the term is contained in the full tool name.
 * Terms add up; tools scoring 0 are dropped; ties keep catalog order. The seed returns at most 5.
 */
export function createSeedRanker(docs: SearchDoc[]) {
  const prepared = docs.map((d) => ({
    name: d.name,
    lower: d.name.toLowerCase(),
    parts: d.name.toLowerCase().split(/[_-]+/).filter(Boolean),
    description: (d.description ?? '').toLowerCase(),
  }));
  const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return {
    search(query: string, limit = 5): SearchHit[] {
      const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
      if (terms.length === 0) return [];
      const patterns = terms.map((t) => new RegExp(`\\b${escapeRegExp(t)}`));
      const hits: SearchHit[] = [];
      for (const doc of prepared) {
        let score = 0;
        terms.forEach((term, i) => {
          let termScore = 0;
          if (doc.parts.includes(term)) termScore += 10;
          else if (doc.parts.some((p) => p.includes(term))) termScore += 5;
          if (patterns[i]!.test(doc.description)) termScore += 4;
          if (termScore === 0 && doc.lower.includes(term)) termScore = 3;
          score += termScore;
        });
        if (score > 0) hits.push({ name: doc.name, score });
      }
      hits.sort((a, b) => b.score - a.score);
      return hits.slice(0, limit);
    },
  };
}
