// 3. ToolSearch: the colleague-owned evaluation (bench/search/eval.ts) run as it is, in its own
// process; its bench/results/search.json carries recall@1/@5 and MRR of our (lexical) ranker, issue 28's
// semantic candidate alone and fused with ours, the previous ranker, the seed's weighted scoring and BM25
// on the dev sets and both untouched sets, plus latency at 327 and ~10,000 tools.

import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './support/provision.ts';

export interface SearchMetrics {
  queries: number;
  recallAt1: number;
  recallAt5: number;
  mrr: number;
}
export interface SearchLatency {
  tools: number;
  buildMs: number;
  p50Ms: number;
  p99Ms: number;
}
export interface SearchResult {
  tools: number;
  untouchedTools?: number;
  untouched2Tools?: number;
  mrrDepth: number;
  quality: Record<string, Record<string, SearchMetrics>>;
  latency: Record<string, SearchLatency[]>;
  evalMs: number;
}

export const SEARCH_JSON = join(REPO_ROOT, 'bench', 'results', 'search.json');

export async function runSearchEval(): Promise<SearchResult> {
  const before = (() => {
    try {
      return statSync(SEARCH_JSON).mtimeMs;
    } catch {
      return 0;
    }
  })();
  const started = performance.now();
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', join('bench', 'search', 'eval.ts')],
    {
      cwd: REPO_ROOT,
      timeout: 300_000,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const evalMs = performance.now() - started;
  mkdirSync(join(REPO_ROOT, 'bench', 'results', 'raw'), { recursive: true });
  writeFileSync(join(REPO_ROOT, 'bench', 'results', 'raw', 'search-eval.txt'), stdout);
  if (statSync(SEARCH_JSON).mtimeMs <= before)
    throw new Error('bench/search/eval.ts did not rewrite bench/results/search.json');
  const json = JSON.parse(readFileSync(SEARCH_JSON, 'utf8'));
  return {
    tools: json.tools,
    untouchedTools: json.untouchedTools,
    untouched2Tools: json.untouched2Tools,
    mrrDepth: json.mrrDepth,
    quality: json.quality,
    latency: json.latency,
    evalMs,
  };
}
