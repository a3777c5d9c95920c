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
import { sessionDescription } from '../../../src/actors/describe-session.ts';
import { buildCatalog } from '../../../src/catalog/catalog.ts';
import {
  buildToolSearchDescription,
  serverKeywords,
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

  it('keywords summarise a server by its frequent, specific words', () => {
    expect(
      serverKeywords('memory', [
        'create_entities',
        'delete_entities',
        'add_observations',
        'delete_observations',
        'read_graph',
      ]),
    ).toEqual(['entity', 'observation', 'graph']);
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

  it('nothing matched: says so and offers close names', () => {
    const outcome = searchCatalog(catalog, 'zzqx', new Set());
    expect(outcome.kind).toBe('none');
    expect(renderSearchOutcome('zzqx', outcome)).toMatch(/No tools matched "zzqx"/);
  });
});
