import { descriptionParts, schemaText } from '../../../src/catalog/search/fields.ts';
import { isContentWord, splitWords, stem } from '../../../src/catalog/search/tokenize.ts';
import type { WordVectors } from './word-vectors.ts';

/** The text of one tool as the semantic stage reads it. */
export interface SemanticDoc {
  server: string;
  tool: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  serverDescription?: string;
  keywords?: string[];
}

/** How much each part of a tool's text counts in its vector. */
const TOOL_TEXT_WEIGHTS = {
  name: 2,
  title: 1,
  lead: 1,
  body: 0.3,
  params: 0.5,
  paramText: 0.2,
  keywords: 1,
};
const MAX_WORDS_PER_TEXT = 120;
/** A tool's score adds this share of its server's similarity: a vague query finds the right server. */
const SERVER_WEIGHT = 0.5;

function normalize(v: Float32Array): boolean {
  let sum = 0;
  for (let k = 0; k < v.length; k++) sum += v[k]! * v[k]!;
  if (sum === 0) return false;
  const inv = 1 / Math.sqrt(sum);
  for (let k = 0; k < v.length; k++) v[k]! *= inv;
  return true;
}

/** Adds the words of `text` to `target`; returns how many were known. */
function embedText(
  vectors: WordVectors,
  target: Float32Array,
  text: string | undefined,
  weight: number,
): number {
  if (!text || weight === 0) return 0;
  let known = 0;
  const words = splitWords(text.slice(0, 4_000));
  for (let i = 0, used = 0; i < words.length && used < MAX_WORDS_PER_TEXT; i++) {
    const word = words[i]!;
    if (!isContentWord(word)) continue;
    used++;
    if (vectors.addTo(target, word, weight) || vectors.addTo(target, stem(word), weight)) known++;
  }
  return known;
}

/**
 * Dense similarity between a query and each tool: the query, each tool (name, title, description,
 * parameters) and each server (name, description, and the centre of its tools) are averages of static
 * word vectors weighted by word rarity; a tool scores its own cosine plus a share of its server's.
 */
export class SemanticIndex {
  readonly #vectors: WordVectors;
  readonly #dims: number;
  readonly #tools: Float32Array;
  readonly #servers: Float32Array;
  readonly #serverOf: Int32Array;
  readonly #serverCount: number;
  readonly #query: Float32Array;
  readonly #serverScore: Float32Array;
  readonly size: number;

  constructor(docs: SemanticDoc[], vectors: WordVectors) {
    const dims = vectors.dimensions;
    this.#vectors = vectors;
    this.#dims = dims;
    this.size = docs.length;
    this.#tools = new Float32Array(docs.length * dims);
    this.#serverOf = new Int32Array(docs.length);
    this.#query = new Float32Array(dims);
    const serverIds = new Map<string, number>();
    const serverText = new Map<number, SemanticDoc>();
    docs.forEach((doc, d) => {
      let s = serverIds.get(doc.server);
      if (s === undefined) {
        s = serverIds.size;
        serverIds.set(doc.server, s);
        serverText.set(s, doc);
      }
      this.#serverOf[d] = s;
      const v = this.#tools.subarray(d * dims, (d + 1) * dims);
      const [lead, body] = descriptionParts(doc.description);
      const schema = schemaText(doc.inputSchema);
      embedText(vectors, v, doc.tool, TOOL_TEXT_WEIGHTS.name);
      embedText(vectors, v, doc.title, TOOL_TEXT_WEIGHTS.title);
      embedText(vectors, v, lead, TOOL_TEXT_WEIGHTS.lead);
      embedText(vectors, v, body, TOOL_TEXT_WEIGHTS.body);
      embedText(vectors, v, schema.names.join(' '), TOOL_TEXT_WEIGHTS.params);
      embedText(vectors, v, schema.text.join('\n'), TOOL_TEXT_WEIGHTS.paramText);
      embedText(vectors, v, doc.keywords?.join(' '), TOOL_TEXT_WEIGHTS.keywords);
      normalize(v);
    });
    this.#serverCount = serverIds.size;
    this.#serverScore = new Float32Array(this.#serverCount);
    const centres = new Float32Array(this.#serverCount * dims);
    for (let d = 0; d < docs.length; d++) {
      const s = this.#serverOf[d]!;
      for (let k = 0; k < dims; k++) centres[s * dims + k]! += this.#tools[d * dims + k]!;
    }
    this.#servers = new Float32Array(this.#serverCount * dims);
    for (const [s, doc] of serverText) {
      const v = this.#servers.subarray(s * dims, (s + 1) * dims);
      embedText(vectors, v, doc.server, 2);
      embedText(vectors, v, doc.serverDescription, 1);
      normalize(v);
      const centre = centres.subarray(s * dims, (s + 1) * dims);
      normalize(centre);
      for (let k = 0; k < dims; k++) v[k]! += centre[k]!;
      normalize(v);
    }
  }

  /** Similarity of each tool to the query (index = doc); undefined when no query word is known. */
  similarities(query: string, out: Float32Array): boolean {
    const q = this.#query;
    q.fill(0);
    if (embedText(this.#vectors, q, query, 1) === 0 || !normalize(q)) return false;
    const dims = this.#dims;
    const servers = this.#servers;
    for (let s = 0; s < this.#serverCount; s++) {
      let dot = 0;
      for (let k = 0, at = s * dims; k < dims; k++, at++) dot += q[k]! * servers[at]!;
      this.#serverScore[s] = dot;
    }
    const tools = this.#tools;
    for (let d = 0; d < this.size; d++) {
      let dot = 0;
      for (let k = 0, at = d * dims; k < dims; k++, at++) dot += q[k]! * tools[at]!;
      out[d] = dot + SERVER_WEIGHT * this.#serverScore[this.#serverOf[d]!]!;
    }
    return true;
  }
}
