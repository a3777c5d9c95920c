import { descriptionParts, schemaText } from '../../../src/catalog/search/fields.ts';
import { isContentWord, splitWords, stem } from '../../../src/catalog/search/tokenize.ts';
import type { SemanticDoc } from './semantic.ts';
import type { WordVectors } from './word-vectors.ts';

/** How much a word found in each part of a tool's text counts. */
const FIELD_WEIGHTS = {
  name: 1,
  title: 0.9,
  lead: 0.8,
  body: 0.45,
  params: 0.6,
  paramText: 0.35,
  server: 0.6,
};
const MAX_WORDS_PER_TEXT = 120;
/** Word pairs less similar than this do not count; above it, similarity is rescaled to (0, 1]. */
const MIN_SIMILARITY = 0.45;

/**
 * Soft word matching (MaxSim over static word vectors): each query word finds the word nearest in meaning
 * in each tool's text (name, title, description, parameters, server); a tool's score is the average, by
 * query-word rarity, of those best similarities times the weight of the field the word was found in.
 */
export class MaxSimIndex {
  readonly size: number;
  readonly #vectors: WordVectors;
  readonly #dims: number;
  readonly #vocabulary: Float32Array;
  readonly #postings: Array<{ docs: Int32Array; weights: Float32Array }>;
  readonly #best: Float32Array;
  readonly #query: Float32Array;

  constructor(docs: SemanticDoc[], vectors: WordVectors) {
    this.size = docs.length;
    this.#vectors = vectors;
    this.#dims = vectors.dimensions;
    this.#best = new Float32Array(docs.length);
    this.#query = new Float32Array(this.#dims);
    const rows = new Map<number, number>();
    const lists: Array<Map<number, number>> = [];
    const add = (text: string | undefined, doc: number, weight: number) => {
      if (!text) return;
      const words = splitWords(text.slice(0, 4_000));
      for (let i = 0, used = 0; i < words.length && used < MAX_WORDS_PER_TEXT; i++) {
        const word = words[i]!;
        if (!isContentWord(word)) continue;
        used++;
        let row = vectors.rowOf(word);
        if (row < 0) row = vectors.rowOf(stem(word));
        if (row < 0) continue;
        let v = rows.get(row);
        if (v === undefined) {
          v = rows.size;
          rows.set(row, v);
          lists.push(new Map());
        }
        const list = lists[v]!;
        if ((list.get(doc) ?? 0) < weight) list.set(doc, weight);
      }
    };
    docs.forEach((doc, d) => {
      const [lead, body] = descriptionParts(doc.description);
      const schema = schemaText(doc.inputSchema);
      add(doc.tool, d, FIELD_WEIGHTS.name);
      add(doc.title, d, FIELD_WEIGHTS.title);
      add(doc.keywords?.join(' '), d, FIELD_WEIGHTS.title);
      add(lead, d, FIELD_WEIGHTS.lead);
      add(body, d, FIELD_WEIGHTS.body);
      add(schema.names.join(' '), d, FIELD_WEIGHTS.params);
      add(schema.text.join('\n'), d, FIELD_WEIGHTS.paramText);
      add(doc.server, d, FIELD_WEIGHTS.server);
      add(doc.serverDescription, d, FIELD_WEIGHTS.server);
    });
    this.#vocabulary = new Float32Array(rows.size * this.#dims);
    for (const [row, v] of rows)
      vectors.copyRow(row, this.#vocabulary.subarray(v * this.#dims, (v + 1) * this.#dims));
    this.#postings = lists.map((list) => ({
      docs: Int32Array.from(list.keys()),
      weights: Float32Array.from(list.values()),
    }));
  }

  similarities(query: string, out: Float32Array): boolean {
    const words = [...new Set(splitWords(query.slice(0, 1_000)).filter(isContentWord))];
    const dims = this.#dims;
    const q = this.#query;
    const best = this.#best;
    const vocabulary = this.#vocabulary;
    out.fill(0);
    let total = 0;
    const touched: number[] = [];
    for (const word of words) {
      let row = this.#vectors.rowOf(word);
      if (row < 0) row = this.#vectors.rowOf(stem(word));
      if (row < 0) continue;
      const importance = this.#vectors.frequencyWeight(row);
      total += importance;
      this.#vectors.copyRow(row, q);
      for (let v = 0; v < this.#postings.length; v++) {
        let dot = 0;
        for (let k = 0, at = v * dims; k < dims; k++, at++) dot += q[k]! * vocabulary[at]!;
        if (dot < MIN_SIMILARITY) continue;
        const strength = (dot - MIN_SIMILARITY) / (1 - MIN_SIMILARITY);
        const { docs, weights } = this.#postings[v]!;
        for (let p = 0; p < docs.length; p++) {
          const d = docs[p]!;
          const value = strength * weights[p]!;
          if (best[d] === 0) touched.push(d);
          if (value > best[d]!) best[d] = value;
        }
      }
      for (const d of touched) {
        out[d]! += importance * best[d]!;
        best[d] = 0;
      }
      touched.length = 0;
    }
    if (total === 0) return false;
    for (let d = 0; d < out.length; d++) out[d]! /= total;
    return true;
  }
}
