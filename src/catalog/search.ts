import type { Catalog } from './catalog.ts';
import { findPhrases, relatedTerms } from './search/concepts.ts';
import { boundedEditDistance } from './search/edit-distance.ts';
import { FIELD_KEYS, type FieldKey, type ToolText, toolFields } from './search/fields.ts';
import { ACTION_VERBS, crudKinds, intentFit, LOOKUP_VERBS } from './search/intent.ts';
import { splitIntents } from './search/intents.ts';
import { distinctiveNameTerms, pushTo, splitGluedNames } from './search/name-terms.ts';
import { suggestNames } from './search/suggest.ts';
import { isContentWord, splitWords, stem } from './search/tokenize.ts';
import { topByScore } from './search/top-k.ts';

/** One tool as the search sees it. `name` is the registered name; `server`/`tool` the original ones. */
export interface SearchDoc extends ToolText {
  name: string;
}

export interface SearchHit {
  name: string;
  score: number;
  /** Share of the query's words the tool matched, 0..1 (synonyms count by their strength). */
  matched: number;
  /**
   * Score as a share of the best hit of the same request, 0..1: of the whole query, or of its part for
   * a query with several requests (each part's best is 1, however its scores compare with the others').
   */
  relative: number;
}

export interface SearchIndex {
  /** Best matches first; [] when nothing matches or the query has no searchable words. Never throws. */
  search(query: string, limit?: number): SearchHit[];
  /** Registered names that look like the query (for "did you mean"), best first. Never throws. */
  suggest(query: string, limit?: number): string[];
  readonly size: number;
}

const DEFAULT_LIMIT = 5;
const MAX_QUERY_CHARS = 1_000;
const MAX_QUERY_WORDS = 64;
/** A query that is a tool's name (registered, original or title) puts that tool first. */
const EXACT_NAME_BONUS = 1_000;
/** Hits scoring below this share of the best hit are noise (one weak synonym in a long description). */
const RELATIVE_CUTOFF = 0.08;

// BM25F: per-field weight and length normalisation, then one saturation over the weighted sum.
const K1 = 1.2;
const FIELD_WEIGHTS: Record<FieldKey, { weight: number; b: number }> = {
  name: { weight: 3.0, b: 0.3 },
  title: { weight: 1.5, b: 0.3 },
  server: { weight: 1.3, b: 0.2 },
  lead: { weight: 1.2, b: 0.5 },
  body: { weight: 0.35, b: 0.75 },
  params: { weight: 0.5, b: 0.5 },
  paramText: { weight: 0.15, b: 0.75 },
  // Configured words, as strong as a title's (pi-mcp-adapter weighs them like a description).
  keywords: { weight: 1.5, b: 0.3 },
};

/** Query-word expansion. */
const PREFIX_WEIGHT_UNKNOWN = 0.45; // "kube" → kubernetes, when the word itself is not in the catalog
const PREFIX_WEIGHT_KNOWN = 0.2;
const PREFIX_MIN_LENGTH = 4;
const MAX_PREFIX_EXPANSIONS = 12;
const FUZZY_WEIGHT = 0.5;
const MAX_FUZZY_EXPANSIONS = 6;
const SHARED_TERM_SHARE = 0.5;
/** Inside a phrase ("web page"), the single words still count, a little less than the phrase. */
const PHRASE_WORD_WEIGHT = 0.8;
/** Words that quantify rather than name what is wanted. */
const WEAK_WORDS = new Set(
  (
    'everything anything all every whole entire entirely each much more most few various new latest current ' +
    'specific certain given particular'
  )
    .split(' ')
    .map(stem),
);
const WEAK_WORD_WEIGHT = 0.3;

/** Ranking signals on top of BM25F. */
const COORDINATION_FLOOR = 0.25; // a hit matching share m of the query keeps FLOOR + (1-FLOOR)·m² of its score
const NAME_MATCH_BOOST = 1.0; // × (1 + boost·F), F = harmonic mean of query-in-name and name-covered
const NAME_ORDER_BOOST = 0.15; // per pair of query words found next to each other, in order, in the name
const LOOKUP_PRIOR = 1.05; // a query without a verb asks to look something up: get_/list_/find_ first
const IMPLIED_LOOKUP_WEIGHT = 0.8;
const RERANK_DEPTH = 60;
/** A query word in exactly the form the tool name uses ("workflows" in list-workflows) is a little better. */
const SURFACE_FORM_BOOST = 0.06;

interface Postings {
  docs: Int32Array;
  weights: Float32Array;
}

interface Expansion {
  term: string;
  weight: number;
  idf: number;
  postings: Postings;
}

/** One thing the query asks for: a word or a phrase, with every term that may stand for it. */
interface QueryUnit {
  words: string[];
  weight: number;
  expansions: Expansion[];
  /** Phrase and glued-word units add score but are not counted as asked-for words. */
  required: boolean;
  /** How much finding this unit in a tool's name says: its idf (rare words say more), times `weight`. */
  importance: number;
  /** The query's own spelling of the unit's words where stemming changed it ("workflows"). */
  surface: string[];
}

function lowerBound(sorted: readonly string[], value: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function normalizeName(text: string): string {
  return text.trim().toLowerCase();
}

function compareHits(a: Pick<SearchHit, 'name' | 'score'>, b: Pick<SearchHit, 'name' | 'score'>): number {
  return b.score - a.score || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LIMIT;
  return Math.max(0, Math.floor(limit));
}

class ToolSearchIndex implements SearchIndex {
  readonly size: number;
  readonly #names: string[];
  readonly #postings = new Map<string, Postings>();
  readonly #idf = new Map<string, number>();
  readonly #sortedTerms: string[];
  readonly #termsByLength = new Map<number, string[]>();
  /** Per doc: the tool name's terms in order (with glued words split). */
  readonly #nameSequence: string[][];
  /** Name term → docs whose tool name has it; `distinctive` leaves out a server's habitual words. */
  readonly #namePostings = new Map<string, Int32Array>();
  readonly #distinctivePostings = new Map<string, Int32Array>();
  readonly #distinctiveCount: Uint16Array;
  readonly #lookupName: Uint8Array;
  /** Per doc: the tool name's words as written (lowercased, unstemmed). */
  readonly #nameWords: string[][];
  readonly #exact = new Map<string, number[]>();
  /** Importance of a query word the catalog never uses: that of a word in half the tools. */
  readonly #unknownIdf: number;
  // Scratch space reused by every search (search is synchronous).
  readonly #score: Float64Array;
  readonly #unitBest: Float64Array;
  readonly #unitStrength: Float64Array;
  readonly #matched: Float64Array;
  readonly #inName: Float64Array;
  readonly #covered: Float64Array;
  readonly #seen: Uint8Array;

  constructor(docs: SearchDoc[]) {
    const n = docs.length;
    this.size = n;
    this.#names = docs.map((d) => d.name);
    this.#unknownIdf = Math.log(1 + (n - n / 2 + 0.5) / (n / 2 + 0.5));
    this.#score = new Float64Array(n);
    this.#unitBest = new Float64Array(n);
    this.#unitStrength = new Float64Array(n);
    this.#matched = new Float64Array(n);
    this.#inName = new Float64Array(n);
    this.#covered = new Float64Array(n);
    this.#seen = new Uint8Array(n);

    const fields = docs.map(toolFields);
    const df = new Map<string, number>();
    for (const f of fields) {
      const seen = new Set<string>();
      for (const key of FIELD_KEYS) for (const t of f[key]) seen.add(t);
      for (const t of seen) df.set(t, (df.get(t) ?? 0) + 1);
    }
    this.#nameSequence = fields.map((f) => splitGluedNames(f, df));
    this.#nameWords = docs.map((d) => splitWords(d.tool));

    const avgLength = {} as Record<FieldKey, number>;
    for (const key of FIELD_KEYS) {
      let total = 0;
      for (const f of fields) total += f[key].length;
      avgLength[key] = Math.max(1, total / Math.max(1, n));
    }
    const build = new Map<string, { docs: number[]; weights: number[] }>();
    fields.forEach((f, doc) => {
      const weighted = new Map<string, number>();
      for (const key of FIELD_KEYS) {
        const terms = f[key];
        if (terms.length === 0) continue;
        const { weight, b } = FIELD_WEIGHTS[key];
        const norm = weight / (1 - b + (b * terms.length) / avgLength[key]);
        for (const t of terms) weighted.set(t, (weighted.get(t) ?? 0) + norm);
      }
      for (const [term, tf] of weighted) {
        let list = build.get(term);
        if (!list) {
          list = { docs: [], weights: [] };
          build.set(term, list);
        }
        list.docs.push(doc);
        list.weights.push((tf * (K1 + 1)) / (tf + K1));
      }
    });
    for (const [term, list] of build) {
      this.#postings.set(term, {
        docs: Int32Array.from(list.docs),
        weights: Float32Array.from(list.weights),
      });
      this.#idf.set(term, Math.log(1 + (n - list.docs.length + 0.5) / (list.docs.length + 0.5)));
      const sameLength = this.#termsByLength.get(term.length) ?? [];
      sameLength.push(term);
      this.#termsByLength.set(term.length, sameLength);
    }
    this.#sortedTerms = [...build.keys()].sort();

    const distinctive = distinctiveNameTerms(docs, this.#nameSequence);
    this.#distinctiveCount = Uint16Array.from(distinctive, (terms) => Math.min(terms.length, 65_535));
    this.#lookupName = Uint8Array.from(this.#nameSequence, (seq) =>
      seq.some((t) => LOOKUP_VERBS.has(t)) ? 1 : 0,
    );
    const nameLists = new Map<string, number[]>();
    const distinctiveLists = new Map<string, number[]>();
    for (let doc = 0; doc < n; doc++) {
      for (const t of new Set(this.#nameSequence[doc])) pushTo(nameLists, t, doc);
      for (const t of distinctive[doc]!) pushTo(distinctiveLists, t, doc);
    }
    for (const [t, list] of nameLists) this.#namePostings.set(t, Int32Array.from(list));
    for (const [t, list] of distinctiveLists) this.#distinctivePostings.set(t, Int32Array.from(list));

    docs.forEach((doc, i) => {
      for (const key of new Set([doc.name, doc.tool, doc.title ?? ''].map(normalizeName))) {
        if (key) pushTo(this.#exact, key, i);
      }
    });
  }

  search(query: string, limit?: number): SearchHit[] {
    try {
      const n = clampLimit(limit);
      const parts = typeof query === 'string' ? splitIntents(query.slice(0, MAX_QUERY_CHARS)) : [];
      if (parts.length === 0) return this.#search(query, n);
      return mergeIntents(
        parts.map((p) => this.#search(p, n)),
        this.#search(query, n),
        n,
      );
    } catch {
      for (const a of [
        this.#score,
        this.#unitBest,
        this.#unitStrength,
        this.#matched,
        this.#inName,
        this.#covered,
      ]) {
        a.fill(0);
      }
      this.#seen.fill(0);
      return [];
    }
  }

  suggest(query: string, limit?: number): string[] {
    try {
      return suggestNames(this.#names, query, clampLimit(limit));
    } catch {
      return [];
    }
  }

  #search(rawQuery: string, limit: number): SearchHit[] {
    if (typeof rawQuery !== 'string' || this.size === 0 || limit === 0) return [];
    const query = rawQuery.slice(0, MAX_QUERY_CHARS);
    const units = this.#analyzeQuery(query);
    const candidates = this.#score_(units, limit);
    const exact = this.#exactMatches(query);
    for (const doc of exact) {
      const hit = candidates.find((c) => c.doc === doc);
      if (hit) {
        hit.score += EXACT_NAME_BONUS;
        hit.matched = 1;
      } else candidates.push({ doc, score: EXACT_NAME_BONUS, matched: 1 });
    }
    if (candidates.length === 0) return [];
    const hits = candidates
      .map((c) => ({ name: this.#names[c.doc]!, score: c.score, matched: c.matched }))
      .sort(compareHits);
    const best = hits[0]!.score;
    const floor = best * RELATIVE_CUTOFF;
    const out: SearchHit[] = [];
    for (const hit of hits) {
      if (out.length >= limit || hit.score < floor) break;
      out.push({
        name: hit.name,
        score: Math.round(hit.score * 1000) / 1000,
        matched: Math.round(hit.matched * 100) / 100,
        relative: best > 0 ? Math.round((hit.score / best) * 1000) / 1000 : 1,
      });
    }
    return out;
  }

  /** BM25F with expansions and coordination, then the name signals on the leading candidates. */
  #score_(units: QueryUnit[], limit: number): Array<{ doc: number; score: number; matched: number }> {
    const score = this.#score;
    const best = this.#unitBest;
    const strength = this.#unitStrength;
    const matched = this.#matched;
    const seen = this.#seen;
    const touched: number[] = [];
    const unitTouched: number[] = [];
    let requiredWeight = 0;
    for (const unit of units) if (unit.required) requiredWeight += unit.weight;

    for (const unit of units) {
      for (const { postings, idf, weight } of unit.expansions) {
        const factor = idf * weight * unit.weight;
        const { docs, weights } = postings;
        for (let p = 0; p < docs.length; p++) {
          const d = docs[p]!;
          const value = factor * weights[p]!;
          if (best[d] === 0) unitTouched.push(d);
          if (value > best[d]!) best[d] = value;
          if (weight > strength[d]!) strength[d] = weight;
        }
      }
      for (const d of unitTouched) {
        if (seen[d] === 0) {
          seen[d] = 1;
          touched.push(d);
        }
        score[d]! += best[d]!;
        if (unit.required) matched[d]! += unit.weight * strength[d]!;
        best[d] = 0;
        strength[d] = 0;
      }
      unitTouched.length = 0;
    }

    for (const d of touched) {
      const share = requiredWeight > 0 ? Math.min(1, matched[d]! / requiredWeight) : 1;
      score[d]! *= COORDINATION_FLOOR + (1 - COORDINATION_FLOOR) * share * share;
    }
    // The name signals decide between tools that all mention the query's words; computing them for the
    // leading candidates only keeps a search over 10,000 tools fast.
    const head = topByScore(touched, score, Math.max(RERANK_DEPTH, limit)).map((d) => ({
      doc: d,
      score: score[d]!,
      matched: requiredWeight > 0 ? Math.min(1, matched[d]! / requiredWeight) : 1,
    }));
    for (const d of touched) {
      score[d] = 0;
      matched[d] = 0;
      seen[d] = 0;
    }
    if (head.length === 0) return head;

    const lookupQuery = !units.some((u) => u.words.some((w) => ACTION_VERBS.has(w)));
    const queryWords = new Set(units.filter((u) => u.required).flatMap((u) => u.words));
    const inflected = units.flatMap((u) => u.surface);
    const queryKinds = crudKinds(queryWords);
    let requiredImportance = 0;
    for (const unit of units) if (unit.required) requiredImportance += unit.importance;
    this.#nameMatch(units, lookupQuery);
    for (const c of head) {
      const d = c.doc;
      const precision = requiredImportance > 0 ? Math.min(1, this.#inName[d]! / requiredImportance) : 0;
      const count = this.#distinctiveCount[d]!;
      const recall = count > 0 ? Math.min(1, this.#covered[d]! / count) : 0;
      const f = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
      c.score *= 1 + NAME_MATCH_BOOST * f;
      c.score *= 1 + NAME_ORDER_BOOST * this.#orderedPairs(units, d);
      if (lookupQuery && this.#lookupName[d] === 1) c.score *= LOOKUP_PRIOR;
      c.score *= intentFit(queryWords, queryKinds, this.#nameSequence[d]!);
      c.score *= 1 + SURFACE_FORM_BOOST * this.#surfaceMatches(inflected, d);
    }
    for (const a of [this.#inName, this.#covered]) a.fill(0);
    return head;
  }

  /** Fills #inName (query weight found in each tool name) and #covered (name words the query covers). */
  #nameMatch(units: QueryUnit[], lookupQuery: boolean): void {
    const best = this.#unitBest;
    const touched: number[] = [];
    const strongest = new Map<string, number>();
    for (const unit of units) {
      for (const e of unit.expansions) {
        if ((strongest.get(e.term) ?? 0) < e.weight) strongest.set(e.term, e.weight);
        if (!unit.required) continue;
        const docs = this.#namePostings.get(e.term);
        if (!docs) continue;
        for (const d of docs) {
          if (best[d] === 0) touched.push(d);
          if (e.weight > best[d]!) best[d] = e.weight;
        }
      }
      for (const d of touched) {
        this.#inName[d]! += unit.importance * best[d]! * best[d]!;
        best[d] = 0;
      }
      touched.length = 0;
    }
    // A query that names only a thing ("slack users") asks to look it up: get_/list_/find_ count as said.
    if (lookupQuery) {
      for (const verb of LOOKUP_VERBS)
        strongest.set(verb, Math.max(strongest.get(verb) ?? 0, IMPLIED_LOOKUP_WEIGHT));
    }
    for (const [term, weight] of strongest) {
      const docs = this.#distinctivePostings.get(term);
      if (docs) for (const d of docs) this.#covered[d]! += weight * weight;
    }
  }

  /** Pairs of neighbouring query words that appear next to each other, in order, in the tool name. */
  #orderedPairs(units: QueryUnit[], doc: number): number {
    const sequence = this.#nameSequence[doc]!;
    const required = units.filter((u) => u.required);
    let pairs = 0;
    for (let i = 0; i + 1 < required.length; i++) {
      const first = required[i]!.words;
      const second = required[i + 1]!.words;
      for (let k = 0; k + 1 < sequence.length; k++) {
        if (first.includes(sequence[k]!) && second.includes(sequence[k + 1]!)) {
          pairs++;
          break;
        }
      }
    }
    return pairs;
  }

  #surfaceMatches(inflected: string[], doc: number): number {
    if (inflected.length === 0) return 0;
    const words = this.#nameWords[doc]!;
    let count = 0;
    for (const w of inflected) if (words.includes(w)) count++;
    return count;
  }

  #analyzeQuery(query: string): QueryUnit[] {
    const words = splitWords(query).slice(0, MAX_QUERY_WORDS);
    const stems = words.map(stem);
    const units: QueryUnit[] = [];
    const seen = new Set<string>();
    const inPhrase = new Array<boolean>(words.length).fill(false);

    for (const phrase of findPhrases(stems)) {
      const inner: string[] = [];
      for (let i = phrase.start; i < phrase.end; i++) {
        inPhrase[i] = true;
        if (isContentWord(words[i]!) && stems[i] !== phrase.term) inner.push(stems[i]!);
      }
      if (seen.has(phrase.term)) continue;
      seen.add(phrase.term);
      const weights = this.#expand(phrase.term);
      for (const word of inner) {
        for (const [t, w] of this.#expand(word)) {
          const scaled = w * PHRASE_WORD_WEIGHT;
          if ((weights.get(t) ?? 0) < scaled) weights.set(t, scaled);
        }
      }
      units.push(this.#unit([phrase.term, ...inner], weights, 1, true));
    }
    for (let i = 0; i < words.length; i++) {
      if (inPhrase[i] || !isContentWord(words[i]!) || seen.has(stems[i]!)) continue;
      seen.add(stems[i]!);
      const weight = WEAK_WORDS.has(stems[i]!) ? WEAK_WORD_WEIGHT : 1;
      const surface = words[i] !== stems[i] ? [words[i]!] : [];
      units.push(this.#unit([stems[i]!], this.#expand(stems[i]!), weight, true, surface));
    }
    // Glued forms of neighbouring words: "sequential thinking" → sequentialthinking, "who am i" → whoami.
    for (let i = 0; i < words.length; i++) {
      let glued = words[i]!;
      for (let k = i + 1; k < Math.min(words.length, i + 3); k++) {
        glued += words[k]!;
        const term = stem(glued);
        if (seen.has(term) || !this.#postings.has(term)) continue;
        seen.add(term);
        units.push(this.#unit([term], this.#expand(term), 1, false));
      }
    }
    return creditOnce(units);
  }

  #unit(
    words: string[],
    weights: Map<string, number>,
    weight: number,
    required: boolean,
    surface: string[] = [],
  ): QueryUnit {
    const expansions: Expansion[] = [];
    for (const [term, w] of weights) {
      const postings = this.#postings.get(term);
      if (postings) expansions.push({ term, weight: w, idf: this.#idf.get(term)!, postings });
    }
    const own = this.#idf.get(words[0]!) ?? this.#unknownIdf;
    return { words, weight, expansions, required, importance: own * weight, surface };
  }

  /** The terms that may stand for a query word, with weights: itself, synonyms, prefixes, typos. */
  #expand(term: string): Map<string, number> {
    const weights = new Map<string, number>();
    const add = (t: string, w: number) => {
      if (this.#postings.has(t) && (weights.get(t) ?? 0) < w) weights.set(t, w);
    };
    add(term, 1);
    const known = weights.size > 0;
    const related = relatedTerms(term);
    if (related) for (const [t, w] of related) add(t, w);
    if (term.length >= PREFIX_MIN_LENGTH) {
      const prefixWeight = known ? PREFIX_WEIGHT_KNOWN : PREFIX_WEIGHT_UNKNOWN;
      let added = 0;
      for (let i = lowerBound(this.#sortedTerms, term); i < this.#sortedTerms.length; i++) {
        const t = this.#sortedTerms[i]!;
        if (!t.startsWith(term) || added >= MAX_PREFIX_EXPANSIONS) break;
        if (t !== term) {
          add(t, prefixWeight);
          added++;
        }
      }
    }
    if (weights.size === 0 && term.length >= 5) {
      for (const t of this.#fuzzyTerms(term)) add(t, FUZZY_WEIGHT);
    }
    return weights;
  }

  /** Catalog terms one typo away (two for long words). */
  #fuzzyTerms(term: string): string[] {
    const maxDistance = term.length >= 8 ? 2 : 1;
    const found: string[] = [];
    for (let len = term.length - maxDistance; len <= term.length + maxDistance; len++) {
      for (const candidate of this.#termsByLength.get(len) ?? []) {
        if (candidate[0] !== term[0] && candidate[1] !== term[1]) continue;
        if (boundedEditDistance(term, candidate, maxDistance) <= maxDistance) {
          found.push(candidate);
          if (found.length >= MAX_FUZZY_EXPANSIONS) return found;
        }
      }
    }
    return found;
  }

  #exactMatches(query: string): number[] {
    const hits = new Set<number>(this.#exact.get(normalizeName(query)) ?? []);
    for (const chunk of query.split(/[\s,]+/)) {
      if (!/[_-]/.test(chunk)) continue;
      for (const d of this.#exact.get(normalizeName(chunk)) ?? []) hits.add(d);
    }
    return [...hits];
  }
}

/**
 * One list for a multi-intent query: the whole query's best hit, the best hit of each part (in the
 * query's order), then the parts' other hits in turn, then the whole query's; scores made
 * non-increasing so the order holds.
 */
function mergeIntents(parts: SearchHit[][], whole: SearchHit[], limit: number): SearchHit[] {
  const out: SearchHit[] = [];
  const taken = new Set<string>();
  const take = (hit: SearchHit | undefined) => {
    if (!hit || taken.has(hit.name) || out.length >= limit) return;
    taken.add(hit.name);
    const previous = out.at(-1)?.score ?? Number.POSITIVE_INFINITY;
    out.push({ ...hit, score: Math.min(hit.score, previous) });
  };
  // The whole query's best stays first when it is some part's best: one tool may serve every part.
  const first = whole[0];
  if (first && parts.some((p) => p[0]?.name === first.name)) take(first);
  const depth = Math.max(...parts.map((p) => p.length));
  for (let rank = 0; rank < depth; rank++) for (const part of parts) take(part[rank]);
  for (const hit of whole) take(hit);
  return out;
}

/**
 * A catalog term that several query words lead to ("tell" → post, "chat" → post) counts fully for the
 * word it is closest to and partly for the others: several words pointing at one concept is evidence,
 * but one word in a description should not count as several full matches.
 */
function creditOnce(units: QueryUnit[]): QueryUnit[] {
  const owner = new Map<string, { unit: QueryUnit; weight: number }>();
  for (const unit of units) {
    for (const e of unit.expansions) {
      const current = owner.get(e.term);
      if (!current || e.weight > current.weight) owner.set(e.term, { unit, weight: e.weight });
    }
  }
  for (const unit of units) {
    for (const e of unit.expansions) {
      if (e.weight < 1 && owner.get(e.term)!.unit !== unit) e.weight *= SHARED_TERM_SHARE;
    }
  }
  return units.filter((u) => u.required || u.expansions.length > 0);
}

/**
 * Builds the tool-search index once per catalog. Ranking: BM25F over the tool name, title, server,
 * first sentence, rest of the description and parameters; query words expanded through phrases, a
 * synonym map, prefixes, glued forms and (for unknown words) one-typo neighbours; then weighed by how
 * much of the query matched, how well the query and the tool's own name match each other, word order
 * in the name, and a lookup-first prior for queries without a verb. Exact names always rank first.
 */
const catalogIndexes = new WeakMap<Catalog, SearchIndex>();

/** The catalog's search index, built on first use: startup registers tools without paying for it. */
export function searchIndexOf(catalog: Catalog): SearchIndex {
  let index = catalogIndexes.get(catalog);
  if (!index) {
    index = createSearchIndex(
      catalog.entries.map((e) => ({
        name: e.name,
        server: e.server,
        tool: e.tool,
        description: e.description,
        ...(e.title ? { title: e.title } : {}),
        inputSchema: e.inputSchema,
        serverDescription: catalog.serverDescriptions.get(e.server),
        ...(e.keywords ? { keywords: e.keywords } : {}),
      })),
    );
    catalogIndexes.set(catalog, index);
  }
  return index;
}

export function createSearchIndex(docs: SearchDoc[]): SearchIndex {
  const valid = Array.isArray(docs)
    ? docs.filter(
        (d) => d && typeof d.name === 'string' && typeof d.server === 'string' && typeof d.tool === 'string',
      )
    : [];
  return new ToolSearchIndex(valid);
}
