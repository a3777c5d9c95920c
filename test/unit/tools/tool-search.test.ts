// ToolSearch's description (budget, stability) and answers, over the real catalogs in bench/data/catalog.

import { Tiktoken } from 'js-tiktoken/lite';
import o200k from 'js-tiktoken/ranks/o200k_base';
import { describe, expect, it } from 'vitest';
import {
  type CatalogFile,
  FIVE_SERVERS,
  readCatalogs,
  stdioDefinition,
  syntheticCatalogs,
} from '../../../bench/support/catalogs.ts';
import { buildCatalog } from '../../../src/catalog/catalog.ts';
import { sessionDescription } from '../../../src/session/describe-session.ts';
import { lineBudget, serverLine, telling } from '../../../src/tools/server-summary.ts';
import {
  buildToolSearchDescription,
  TOOL_SEARCH_NAME,
  toolSearchParameters,
} from '../../../src/tools/tool-search.ts';
import { renderSearchOutcome, searchCatalog } from '../../../src/tools/tool-search-answer.ts';
import { loadedConfig } from '../../support/config.ts';

const enc = new Tiktoken(o200k);
const declarationTokens = (description: string) =>
  enc.encode(
    JSON.stringify({
      type: 'function',
      function: { name: TOOL_SEARCH_NAME, description, parameters: toolSearchParameters },
    }),
  ).length;

function session(catalogs: CatalogFile[], cachedNames = catalogs.map((c) => c.server)) {
  const config = loadedConfig(catalogs.map((c) => stdioDefinition(c.server)));
  const cached = Object.fromEntries(
    catalogs
      .filter((c) => cachedNames.includes(c.server))
      .map((c) => [c.server, { tools: c.tools, resources: [] }]),
  );
  const catalog = buildCatalog(
    config.servers.map((definition) => ({ definition, ...cached[definition.name] })),
    { toolPrefix: 'server' },
  );
  return { config, cached, catalog, description: sessionDescription(config, cached) };
}

describe('ToolSearch description', () => {
  it('costs no more than Pi built-in MCP at turn one: ≤ 240 o200k tokens for the five reference servers', () => {
    const { description } = session(readCatalogs(FIVE_SERVERS));
    expect(declarationTokens(description)).toBeLessThanOrEqual(240);
  });

  it('stays small at any size: ≤ 600 tokens for 23 servers and ≤ 800 for 100 servers × 50 tools', () => {
    expect(declarationTokens(session(readCatalogs()).description)).toBeLessThanOrEqual(600);
    expect(declarationTokens(session(syntheticCatalogs(100, 50)).description)).toBeLessThanOrEqual(800);
  });

  it('names every server with its tool count, and marks servers whose tools are not known yet', () => {
    const catalogs = readCatalogs(FIVE_SERVERS);
    const { description } = session(catalogs, ['memory', 'github']);
    expect(description).toMatch(/- memory \(9\)/);
    expect(description).toMatch(/- github \(26\)/);
    expect(description).toMatch(/- playwright \(\?\)/);
  });

  it('lists the tools themselves when the catalog is small', () => {
    const small: CatalogFile = {
      server: 'notes',
      tools: [
        {
          name: 'add_note',
          description: 'Add a note. Long detail follows.',
          inputSchema: { type: 'object' },
        },
        { name: 'list_notes', description: 'List notes', inputSchema: { type: 'object' } },
      ],
    };
    const { description } = session([small]);
    expect(description).toContain('- notes__add_note: Add a note.');
    expect(description).toContain('- notes__list_notes: List notes');
  });

  it('is a pure function of config and cache: the same input gives byte-identical text', () => {
    const a = session(readCatalogs(FIVE_SERVERS)).description;
    const b = session(readCatalogs(FIVE_SERVERS)).description;
    expect(a).toBe(b);
  });

  it('says so when no server is configured', () => {
    expect(buildToolSearchDescription([], [])).toMatch(/No MCP servers are configured/);
  });

  it('says what each server is for: configured description, else its title and instructions, then its tools', () => {
    const configured = serverLine('docs', {
      description: 'Company handbook and HR policies. Maintained by people ops.',
      title: 'Docs Server',
      toolNames: ['search_pages', 'get_page'],
      budget: lineBudget(5),
    });
    expect(configured).toBe('Company handbook and HR policies. Tools: search_pages, get_page');
    const own = serverLine('pubmed', {
      instructions: 'Use the pubmed tools to search biomedical literature. Rate limits apply.',
      toolNames: ['pubmed_search_articles', 'pubmed_fetch_articles', 'pubmed_format_citations'],
      budget: lineBudget(5),
    });
    expect(own).toBe(
      'Use the pubmed tools to search biomedical literature. Tools: search_articles, format_citations, fetch_articles',
    );
    expect(serverLine('empty', { toolNames: [], budget: 100 })).toBeUndefined();
  });

  it('shows the most telling tool names first, without the prefix most of them share', () => {
    expect(
      telling('slack', [
        'slack_post_message',
        'slack_list_channels',
        'slack_get_channel_history',
        'slack_add_reaction',
      ]),
    ).toEqual(['get_channel_history', 'post_message', 'add_reaction', 'list_channels']);
    const line = serverLine('github', {
      toolNames: readCatalogs(['github'])[0]!.tools.map((t) => t.name),
      budget: 60,
    });
    expect(line!.length).toBeLessThanOrEqual(64);
    expect(line).toMatch(/pull_request/);
    expect(line).toMatch(/, …$/);
  });

  it('uses what servers say about themselves at initialize (title, instructions) from the cache', () => {
    const catalogs = readCatalogs(['memory']);
    const config = loadedConfig([stdioDefinition('memory')]);
    const description = sessionDescription(config, {
      memory: {
        tools: catalogs[0]!.tools,
        resources: [],
        serverInfo: { name: 'memory', version: '1', title: 'Knowledge Graph Memory' },
        instructions: 'Stores facts about the user across conversations.',
      },
    });
    expect(description).toMatch(/- memory \(9\): Knowledge Graph Memory: Stores facts about the user/);
  });
});

describe('ToolSearch answers', () => {
  const { catalog } = session(readCatalogs(FIVE_SERVERS));

  it('keywords load the best matches and say what each does', () => {
    const outcome = searchCatalog(catalog, 'take a screenshot of the page', new Set());
    expect(outcome.kind).toBe('loaded');
    if (outcome.kind !== 'loaded') return;
    expect(outcome.entries.map((e) => e.name)).toContain('playwright__browser_take_screenshot');
    expect(outcome.entries.length).toBeLessThanOrEqual(5);
    expect(renderSearchOutcome('q', outcome)).toMatch(/^Loaded \d tools?; call/);
  });

  it('select: loads exact names and reports the unknown ones', () => {
    const outcome = searchCatalog(
      catalog,
      'select:memory__read_graph, github__create_issue',
      new Set(['memory__read_graph']),
    );
    expect(outcome).toMatchObject({ kind: 'loaded', alreadyActive: ['memory__read_graph'] });
    if (outcome.kind === 'loaded')
      expect(outcome.entries.map((e) => e.name)).toEqual(['memory__read_graph', 'github__create_issue']);
    const none = searchCatalog(catalog, 'select:memory__read_grph', new Set());
    expect(none.kind).toBe('none');
    const text = renderSearchOutcome('select:memory__read_grph', none);
    expect(text).toMatch(/Unknown tool names: memory__read_grph/);
    expect(text).toMatch(/memory__read_graph/);
  });

  it('nothing matched: says so and offers close names and the servers', () => {
    const outcome = searchCatalog(catalog, 'zzqx', new Set());
    expect(outcome.kind).toBe('none');
    const text = renderSearchOutcome('zzqx', outcome);
    expect(text).toMatch(/No tools matched "zzqx"/);
    expect(text).toMatch(/Servers: everything, filesystem, github, memory, playwright; server:<name>/);
  });

  it('server:<name> lists the tools of a server, one line each, without loading them', () => {
    const outcome = searchCatalog(catalog, 'server:memory', new Set());
    expect(outcome.kind).toBe('server');
    if (outcome.kind !== 'server') return;
    expect(outcome.entries.map((e) => e.tool)).toContain('read_graph');
    expect(outcome.entries).toHaveLength(9);
    const text = renderSearchOutcome('server:memory', outcome);
    expect(text).toMatch(/^Server memory has 9 tools \(none loaded/);
    expect(text).toContain('- memory__read_graph: Read the entire knowledge graph');
    const unknown = renderSearchOutcome('server:git', searchCatalog(catalog, 'server:git', new Set()));
    expect(unknown).toBe('No server named "git". Servers: github. Use server:<name>.');
  });

  it('a query with no good match says so and names the closest servers', () => {
    const outcome = searchCatalog(
      catalog,
      'quarterly revenue forecast for the board meeting slides',
      new Set(),
    );
    expect(outcome.kind).toBe('loaded');
    if (outcome.kind !== 'loaded') return;
    expect(outcome.weak?.closestServers.length).toBeGreaterThan(0);
    expect(renderSearchOutcome('q', outcome)).toMatch(
      /^No tool matched most of "q"; these are the nearest\. Closest servers: \w/,
    );
    const good = searchCatalog(catalog, 'take a screenshot of the page', new Set());
    expect(good.kind === 'loaded' && good.weak).toBeFalsy();
  });

  it('"add two numbers" loads the one tool that adds; the weaker matches are named, not loaded', () => {
    // The servers of issue 36's first day: everything, memory and filesystem, as they list their tools.
    const { catalog: three } = session(readCatalogs(['everything', 'memory', 'filesystem']));
    const outcome = searchCatalog(three, 'add two numbers', new Set());
    expect(outcome.kind).toBe('loaded');
    if (outcome.kind !== 'loaded') return;
    expect(outcome.entries.map((e) => e.name)).toEqual(['everything__get-sum']);
    expect(outcome.also).toContain('memory__add_observations');
    const text = renderSearchOutcome('add two numbers', outcome);
    expect(text).toMatch(/^Loaded 1 tool; call it directly/);
    expect(text).toMatch(
      /\nAlso matched, less well \(not loaded; select:<name> loads one\): memory__add_observations, /,
    );
    // The five reference servers: still no memory or filesystem tool rides along.
    const five = searchCatalog(catalog, 'add two numbers', new Set());
    if (five.kind !== 'loaded') throw new Error(five.kind);
    expect(five.entries[0]!.name).toBe('everything__get-sum');
    expect(five.entries.filter((e) => e.server === 'memory' || e.server === 'filesystem')).toEqual([]);
  });

  it('select: loads exactly the names given, however weakly they would match a search', () => {
    const outcome = searchCatalog(catalog, 'select:everything__get-sum,memory__add_observations', new Set());
    if (outcome.kind !== 'loaded') throw new Error(outcome.kind);
    expect(outcome.entries.map((e) => e.name)).toEqual(['everything__get-sum', 'memory__add_observations']);
    expect(outcome.also).toBeUndefined();
  });

  it('a multi-intent query gets the best tool for each part', () => {
    const { catalog: all } = session(readCatalogs());
    const outcome = searchCatalog(
      all,
      'list my open pull requests and post a summary to the team channel',
      new Set(),
    );
    expect(outcome.kind).toBe('loaded');
    if (outcome.kind !== 'loaded') return;
    const names = outcome.entries.map((e) => e.name);
    expect(names).toContain('github__list_pull_requests');
    expect(names).toContain('slack__slack_post_message');
  });
});
