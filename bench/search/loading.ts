// What ToolSearch loads per query: tools and their schemas' o200k tokens (each rides on every later
// request), before the cut (the top 5, as ToolSearch loaded until issue 36) and after it
// (src/catalog/search/worth-loading.ts), with the recall of what is loaded.

import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { worthLoading } from '../../src/catalog/search/worth-loading.ts';
import type { SearchDoc, SearchHit } from '../../src/catalog/search.ts';
import { SEARCH_LIMIT } from '../../src/tools/tool-search.ts';
import type { Query } from './catalog.ts';

export interface Loading {
  queries: number;
  /** Top 5 loaded: tools and schema tokens per query, and recall (= recall@5). */
  before: { tools: number; tokens: number; recall: number };
  /** After the cut; the rest of the top 5 is still named in the answer, so recall@5 is unchanged. */
  after: { tools: number; tokens: number; recall: number };
}

const enc = new Tiktoken(o200k);

export function loadingOf(
  ranker: { search(query: string, limit?: number): SearchHit[] },
  docs: SearchDoc[],
  queries: Query[],
): Loading {
  const byName = new Map(docs.map((d) => [d.name, d]));
  const tokens = new Map<string, number>();
  const tokensOf = (name: string) => {
    let n = tokens.get(name);
    if (n === undefined) {
      const d = byName.get(name)!;
      n = enc.encode(
        JSON.stringify({
          type: 'function',
          function: {
            name,
            description: d.description ?? '',
            parameters: d.inputSchema ?? { type: 'object' },
          },
        }),
      ).length;
      tokens.set(name, n);
    }
    return n;
  };
  const sum = { before: { tools: 0, tokens: 0, recall: 0 }, after: { tools: 0, tokens: 0, recall: 0 } };
  for (const { q, expect } of queries) {
    const top = ranker.search(q, SEARCH_LIMIT * 2).slice(0, SEARCH_LIMIT);
    const right = (h: SearchHit) => {
      const d = byName.get(h.name)!;
      return expect.includes(`${d.server}/${d.tool}`);
    };
    for (const [key, loaded] of [
      ['before', top],
      ['after', worthLoading(top).load],
    ] as const) {
      sum[key].tools += loaded.length;
      sum[key].tokens += loaded.reduce((n, h) => n + tokensOf(h.name), 0);
      if (loaded.some(right)) sum[key].recall++;
    }
  }
  const n = queries.length;
  const per = (s: { tools: number; tokens: number; recall: number }) => ({
    tools: s.tools / n,
    tokens: s.tokens / n,
    recall: s.recall / n,
  });
  return { queries: n, before: per(sum.before), after: per(sum.after) };
}
