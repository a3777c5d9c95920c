/**
 * Tool-search evaluation: recall@1, recall@5 and MRR (over the top 10) of our ranker, the seed's
 * weighted scoring and plain BM25, on the dev query set and our paraphrase set, plus search latency
 * at the real catalog size and at ~10,000 tools. Prints a table and writes bench/results/search.json.
 *
 *   npx tsx bench/search/eval.ts [--verbose] [--verbose-holdout] [--no-untouched] [--quality-only] [--candidates]
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSearchIndex, type SearchDoc } from '../../src/catalog/search.ts';
import {
  CATALOG_DIR,
  DEV_QUERIES,
  FINAL_QUERIES,
  HOLDOUT_QUERIES,
  loadCatalogFiles,
  loadQueries,
  PARAPHRASE_QUERIES,
  type Query,
  synthesizeDocs,
  toDocs,
  UNTOUCHED_CATALOG_DIR,
  UNTOUCHED_QUERIES,
  UNTOUCHED2_CATALOG_DIR,
  UNTOUCHED2_QUERIES,
} from './catalog.ts';
import { type Loading, loadingOf } from './loading.ts';
import { createSearchIndex as createPreviousIndex } from './previous/search.ts';
import { createBm25Ranker } from './reference-bm25.ts';
import { createSeedRanker } from './reference-seed.ts';
import { createSemanticRanker } from './semantic/rankers.ts';

interface Ranker {
  search(query: string, limit?: number): Array<{ name: string; score: number }>;
}
type RankerFactory = (docs: SearchDoc[]) => Ranker;

/**
 * `ours` is the lexical ranker the extension ships. `semantic` and `fused` are issue 28's best semantic
 * candidate (chosen on the dev sets): soft word matching over GloVe vectors retrofitted to WordNet,
 * alone and added to ours (bench/search/semantic/README.md). `--candidates` adds the others tried.
 */
const RANKERS: Record<string, RankerFactory> = {
  ours: createSearchIndex,
  semantic: (docs) => createSemanticRanker(docs, 'semantic', 'maxsim', 'glove-wordnet'),
  fused: (docs) => createSemanticRanker(docs, 'fused', 'maxsim', 'glove-wordnet'),
  previous: createPreviousIndex,
  seed: createSeedRanker,
  bm25: createBm25Ranker,
  ...(process.argv.includes('--candidates')
    ? {
        'semantic-glove': (docs: SearchDoc[]) => createSemanticRanker(docs, 'semantic', 'maxsim', 'glove'),
        'fused-glove': (docs: SearchDoc[]) => createSemanticRanker(docs, 'fused', 'maxsim', 'glove'),
        'semantic-centroid': (docs: SearchDoc[]) =>
          createSemanticRanker(docs, 'semantic', 'centroid', 'glove'),
        'fused-centroid': (docs: SearchDoc[]) => createSemanticRanker(docs, 'fused', 'centroid', 'glove'),
      }
    : {}),
};
const DEPTH = 10;
const verbose = process.argv.includes('--verbose');
/** The holdout set was written after the first tuning round; its misses are shown only on request. */
const verboseHoldout = process.argv.includes('--verbose-holdout');
let showMisses = verbose;
/** For tuning runs: leave out the untouched set (it is reported once, when tuning is over). */
const withUntouched = !process.argv.includes('--no-untouched');

interface Metrics {
  queries: number;
  recallAt1: number;
  recallAt5: number;
  mrr: number;
}

function evaluate(name: string, ranker: Ranker, docs: SearchDoc[], queries: Query[]): Metrics {
  const idByName = new Map(docs.map((d) => [d.name, `${d.server}/${d.tool}`]));
  let r1 = 0;
  let r5 = 0;
  let mrr = 0;
  for (const { q, expect } of queries) {
    const ids = ranker.search(q, DEPTH).map((h) => idByName.get(h.name));
    const rank = ids.findIndex((id) => id !== undefined && expect.includes(id)) + 1;
    if (rank === 1) r1++;
    if (rank >= 1 && rank <= 5) r5++;
    if (rank >= 1) mrr += 1 / rank;
    if (showMisses && name === 'ours' && rank !== 1) {
      console.log(`  [${rank || '-'}] ${q}  → ${ids.slice(0, 5).join(', ')}   (want ${expect.join(', ')})`);
    }
  }
  const n = queries.length;
  return { queries: n, recallAt1: r1 / n, recallAt5: r5 / n, mrr: mrr / n };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

function latency(factory: RankerFactory, docs: SearchDoc[], queries: string[], rounds: number) {
  // Build a few times: the first build in a process also pays for module warm-up.
  const builds: number[] = [];
  let ranker = factory(docs);
  for (let i = 0; i < 3; i++) {
    const buildStart = performance.now();
    ranker = factory(docs);
    builds.push(performance.now() - buildStart);
  }
  const buildMs = builds.sort((a, b) => a - b)[1]!;
  for (const q of queries) ranker.search(q, 5); // warm-up
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      const start = performance.now();
      ranker.search(q, 5);
      times.push(performance.now() - start);
    }
  }
  times.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    tools: docs.length,
    buildMs: round(buildMs),
    p50Ms: round(percentile(times, 0.5)),
    p99Ms: round(percentile(times, 0.99)),
  };
}

function checkQueries(set: string, docs: SearchDoc[], queries: Query[]): void {
  const ids = new Set(docs.map((d) => `${d.server}/${d.tool}`));
  for (const { q, expect } of queries) {
    for (const id of expect)
      if (!ids.has(id)) throw new Error(`${set}: query "${q}" expects unknown tool ${id}`);
  }
}

if (!existsSync(CATALOG_DIR)) {
  console.error(`No catalogs at ${CATALOG_DIR}. The repository ships them in bench/data/catalog.`);
  process.exit(1);
}
const catalogs = loadCatalogFiles();
const docs = toDocs(catalogs);
const sets: Record<string, Query[]> = {
  dev: loadQueries(DEV_QUERIES),
  paraphrase: loadQueries(PARAPHRASE_QUERIES),
  holdout: loadQueries(HOLDOUT_QUERIES),
  final: loadQueries(FINAL_QUERIES),
};

const quality: Record<string, Record<string, Metrics>> = {};
const loading: Record<string, Loading> = {};
function evaluateSet(set: string, setDocs: SearchDoc[], queries: Query[]): void {
  checkQueries(set, setDocs, queries);
  loading[set] = loadingOf(createSearchIndex(setDocs), setDocs, queries);
  quality[set] = {};
  showMisses =
    set === 'holdout' || set === 'final' ? verboseHoldout : set.startsWith('untouched') ? false : verbose;
  if (showMisses) console.log(`\n${set} — ours, queries not ranked first:`);
  for (const [name, factory] of Object.entries(RANKERS))
    quality[set]![name] = evaluate(name, factory(setDocs), setDocs, queries);
}
for (const [set, queries] of Object.entries(sets)) evaluateSet(set, docs, queries);

// The untouched set: 16 servers never tuned on, searched together with the 23 tuning servers.
let untouchedTools = 0;
let untouched2Tools = 0;
if (withUntouched) {
  const untouchedDocs = toDocs([...catalogs, ...loadCatalogFiles(UNTOUCHED_CATALOG_DIR)]);
  untouchedTools = untouchedDocs.length;
  const queries = loadQueries(UNTOUCHED_QUERIES);
  sets.untouched = queries;
  evaluateSet('untouched', untouchedDocs, queries);
  for (const style of [...new Set(queries.map((q) => q.style ?? 'other'))]) {
    const subset = queries.filter((q) => (q.style ?? 'other') === style);
    sets[`untouched-${style}`] = subset;
    evaluateSet(`untouched-${style}`, untouchedDocs, subset);
  }
  // The second untouched set (issue 28): 22 more servers, searched together with all 39 above.
  const untouched2Docs = toDocs([
    ...catalogs,
    ...loadCatalogFiles(UNTOUCHED_CATALOG_DIR),
    ...loadCatalogFiles(UNTOUCHED2_CATALOG_DIR),
  ]);
  untouched2Tools = untouched2Docs.length;
  const queries2 = loadQueries(UNTOUCHED2_QUERIES);
  sets.untouched2 = queries2;
  evaluateSet('untouched2', untouched2Docs, queries2);
  for (const style of [...new Set(queries2.map((q) => q.style ?? 'other'))]) {
    const subset = queries2.filter((q) => (q.style ?? 'other') === style);
    sets[`untouched2-${style}`] = subset;
    evaluateSet(`untouched2-${style}`, untouched2Docs, subset);
  }
}

const qualityOnly = process.argv.includes('--quality-only');
const allQueries = Object.entries(sets)
  .filter(([set]) => !/^untouched2?-/.test(set))
  .flatMap(([, qs]) => qs.map((q) => q.q));
const big = synthesizeDocs(catalogs, 10_000);
const timing: Record<string, ReturnType<typeof latency>[]> = {};
for (const [name, factory] of qualityOnly ? [] : Object.entries(RANKERS)) {
  timing[name] = [
    latency(factory, docs, allQueries, 30),
    latency(factory, big, allQueries, name === 'ours' ? 10 : 1),
  ];
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(7);
console.log(`\nCatalog: ${catalogs.length} servers, ${docs.length} tools. MRR over the top ${DEPTH}.`);
if (untouchedTools > 0)
  console.log(
    `untouched sets: searched over ${untouchedTools} tools (23 tuning + 16 untouched servers); untouched2 sets over ${untouched2Tools} (+22 servers).`,
  );
for (const [set, byRanker] of Object.entries(quality)) {
  console.log(`\n${set} (${sets[set]!.length} queries)      R@1      R@5      MRR`);
  for (const [name, m] of Object.entries(byRanker)) {
    console.log(
      `  ${name.padEnd(22)}${pct(m.recallAt1)}  ${pct(m.recallAt5)}  ${m.mrr.toFixed(3).padStart(7)}`,
    );
  }
}
console.log(
  '\nToolSearch loads (ours), per query: tools / schema tokens (o200k) / recall of the loaded tools',
);
console.log('                          top 5 (before the cut)        after the cut');
for (const [set, l] of Object.entries(loading)) {
  const cell = (s: Loading['before']) =>
    `${s.tools.toFixed(2).padStart(5)} ${s.tokens.toFixed(0).padStart(6)} ${pct(s.recall)}`;
  console.log(`  ${set.padEnd(22)}${cell(l.before)}       ${cell(l.after)}`);
}
console.log('\nlatency (ms)             tools   build     p50     p99');
for (const [name, rows] of Object.entries(timing)) {
  for (const row of rows) {
    console.log(
      `  ${name.padEnd(20)}${String(row.tools).padStart(7)} ${row.buildMs.toFixed(1).padStart(7)} ${row.p50Ms.toFixed(3).padStart(7)} ${row.p99Ms.toFixed(3).padStart(7)}`,
    );
  }
}

const outDir = join(fileURLToPath(new URL('.', import.meta.url)), '../results');
mkdirSync(outDir, { recursive: true });
writeFileSync(
  join(outDir, 'search.json'),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, tools: docs.length, untouchedTools, untouched2Tools, mrrDepth: DEPTH, quality, loading, latency: timing }, null, 2)}\n`,
);
console.log(`\nwrote ${join('bench/results', 'search.json')}`);
