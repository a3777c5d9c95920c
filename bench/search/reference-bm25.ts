import type { SearchDoc } from '../../src/catalog/search.ts';

type SearchHit = { name: string; score: number };

/**
 * Plain Okapi BM25 (k1 = 1.2, b = 0.75) over one field: registered name, title and description,
 * lowercased and split at every non-alphanumeric character. No stemming, stopwords or synonyms.
 */
export function createBm25Ranker(docs: SearchDoc[], k1 = 1.2, b = 0.75) {
  const tokenize = (text: string) =>
    text
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
  const docTf = docs.map((d) => {
    const tf = new Map<string, number>();
    const tokens = tokenize(`${d.name} ${d.title ?? ''} ${d.description ?? ''}`);
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { tf, length: tokens.length };
  });
  const n = docs.length;
  const avgLength = docTf.reduce((sum, d) => sum + d.length, 0) / Math.max(1, n);
  const df = new Map<string, number>();
  for (const d of docTf) for (const t of d.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const idf = (t: string) => {
    const f = df.get(t) ?? 0;
    return Math.log(1 + (n - f + 0.5) / (f + 0.5));
  };
  return {
    search(query: string, limit = 5): SearchHit[] {
      const terms = [...new Set(tokenize(query))];
      const hits: SearchHit[] = [];
      docTf.forEach((d, i) => {
        let score = 0;
        for (const t of terms) {
          const tf = d.tf.get(t);
          if (!tf) continue;
          score += (idf(t) * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * d.length) / avgLength));
        }
        if (score > 0) hits.push({ name: docs[i]!.name, score });
      });
      hits.sort((a, b) => b.score - a.score);
      return hits.slice(0, limit);
    },
  };
}
