import { topByScore } from '../../../src/catalog/search/top-k.ts';
import { createSearchIndex, type SearchDoc, type SearchHit } from '../../../src/catalog/search.ts';
import { MaxSimIndex } from './maxsim.ts';
import { SemanticIndex } from './semantic.ts';
import { type TableName, tablePath, wordVectors } from './word-vectors.ts';

/**
 * The semantic candidates of issue 28, as rankers for bench/search/eval.ts: `semantic` ranks by the
 * static-embedding similarity alone; `fused` adds it to our lexical ranker's scores.
 */

/** How many lexical hits and leading semantic tools enter the fusion. */
const LEXICAL_DEPTH = 60;
const SEMANTIC_DEPTH = 30;
/** The semantic part's weight against the lexical score over the best lexical score (chosen on the dev sets). */
const SEMANTIC_WEIGHT = 0.45;
const EXACT_NAME_BONUS = 1_000;

/** `centroid`: one vector per tool and per server; `maxsim`: each query word's best match in each tool. */
export type SemanticModel = 'centroid' | 'maxsim';

export function createSemanticRanker(
  docs: SearchDoc[],
  mode: 'semantic' | 'fused',
  model: SemanticModel = 'centroid',
  table: TableName = 'glove',
) {
  const vectors = wordVectors(table);
  if (!vectors)
    throw new Error(`no word-vector table at ${tablePath(table)}: run bench/search/semantic/build-table.ts`);
  const lexical = mode === 'fused' ? createSearchIndex(docs) : undefined;
  const semantic = model === 'maxsim' ? new MaxSimIndex(docs, vectors) : new SemanticIndex(docs, vectors);
  const similarity = new Float32Array(docs.length);
  const all = docs.map((_, d) => d);
  const byName = new Map(docs.map((d, i) => [d.name, i]));
  return {
    search(query: string, limit = 5): SearchHit[] {
      const lexicalHits = lexical?.search(query, LEXICAL_DEPTH) ?? [];
      if (!semantic.similarities(query, similarity)) return lexicalHits.slice(0, limit);
      // Similarities mean something only relative to each other: the leader gets 1, the tool at
      // SEMANTIC_DEPTH gets 0.
      const order = topByScore(all, similarity, SEMANTIC_DEPTH + 1);
      const top = similarity[order[0]!]!;
      const floor = similarity[order.at(-1)!]!;
      const span = top - floor || 1;
      const weight = mode === 'semantic' ? 1 : SEMANTIC_WEIGHT;
      const semanticPart = (d: number) => weight * Math.max(0, (similarity[d]! - floor) / span);
      const lexicalScore = (h: SearchHit) =>
        h.score >= EXACT_NAME_BONUS ? h.score - EXACT_NAME_BONUS : h.score;
      const scale = lexicalHits.reduce((max, h) => Math.max(max, lexicalScore(h)), 0) || 1;
      const fused = new Map<string, SearchHit>();
      for (const h of lexicalHits) {
        const bonus = h.score >= EXACT_NAME_BONUS ? EXACT_NAME_BONUS : 0;
        const score = lexicalScore(h) / scale + semanticPart(byName.get(h.name)!) + bonus;
        fused.set(h.name, { ...h, score });
      }
      for (const d of order) {
        const name = docs[d]!.name;
        if (!fused.has(name)) fused.set(name, { name, score: semanticPart(d), matched: 0, relative: 0 });
      }
      return [...fused.values()]
        .filter((h) => h.score > 0)
        .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1))
        .slice(0, limit);
    },
  };
}
