// The cut between the hits ToolSearch loads and those it only names, on its own and on the real
// ranker's relative scores (a query with two requests keeps the best of each).

import { describe, expect, it } from 'vitest';
import { readCatalogs, stdioDefinition } from '../../../bench/support/catalogs.ts';
import { buildCatalog } from '../../../src/catalog/catalog.ts';
import { LOAD_SHARE, worthLoading } from '../../../src/catalog/search/worth-loading.ts';
import { searchIndexOf } from '../../../src/catalog/search.ts';

const hit = (name: string, relative: number) => ({ name, relative });
const names = (hits: Array<{ name: string }>) => hits.map((h) => h.name);

describe('worthLoading', () => {
  it('loads hits at or above the share of the best and names the rest, in order', () => {
    const { load, also } = worthLoading([
      hit('a', 1),
      hit('b', 0.9),
      hit('c', 0.4),
      hit('d', 0.39),
      hit('e', 0.1),
    ]);
    expect(names(load)).toEqual(['a', 'b', 'c']);
    expect(names(also)).toEqual(['d', 'e']);
  });

  it('always loads the first hit, and measures from the best available one', () => {
    // The best of all belonged to a server switched off: the rest are measured from 0.3, not from 1.
    const { load, also } = worthLoading([hit('a', 0.3), hit('b', 0.2), hit('c', 0.1)]);
    expect(names(load)).toEqual(['a', 'b']);
    expect(names(also)).toEqual(['c']);
    expect(worthLoading([hit('only', 0.05)]).load).toHaveLength(1);
    expect(worthLoading([])).toEqual({ load: [], also: [] });
  });

  it('keeps the best hit of every request of a query with several', () => {
    const { load } = worthLoading([hit('first-part', 1), hit('x', 0.2), hit('second-part', 1)]);
    expect(names(load)).toEqual(['first-part', 'second-part']);
  });

  it('takes another share when given one', () => {
    expect(names(worthLoading([hit('a', 1), hit('b', 0.5)], 0.6).load)).toEqual(['a']);
    expect(LOAD_SHARE).toBeGreaterThan(0);
    expect(LOAD_SHARE).toBeLessThan(1);
  });
});

describe('relative scores of the real ranker', () => {
  const servers = readCatalogs();
  const catalog = buildCatalog(
    servers.map((c) => ({ definition: stdioDefinition(c.server), tools: c.tools, resources: [] })),
    { toolPrefix: 'server' },
  );
  const index = searchIndexOf(catalog);

  it('are the share of the best hit, best first', () => {
    const hits = index.search('take a screenshot of the page', 10);
    expect(hits[0]!.relative).toBe(1);
    for (const h of hits) expect(h.relative).toBeCloseTo(h.score / hits[0]!.score, 2);
  });

  it("are measured within each request's own hits for a query with two requests", () => {
    const hits = index.search('list my open pull requests and post a summary to the team channel', 10);
    const post = hits.find((h) => h.name === 'slack__slack_post_message');
    expect(post?.relative).toBe(1);
    expect(names(worthLoading(hits.slice(0, 5)).load)).toEqual(
      expect.arrayContaining(['github__list_pull_requests', 'slack__slack_post_message']),
    );
  });
});
